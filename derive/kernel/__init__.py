"""The proof kernel: the only part of derive that may say *proved*.

Following the de Bruijn criterion, what decides a verdict is kept small and
apart, and everything else is untrusted:

Trusted (this package: about 2,800 lines with their docstrings, to be read in one sitting):

* :mod:`~derive.kernel.decide`     the verdict of one step; the only code that issues ``Verdict.PROVED``;
* :mod:`~derive.kernel.strategies` normalisation and the symbolic strategies (sympy's algebra:
  expand, cancel, factor, trigsimp, simplify, …, each under a CPU-time slice);
* :mod:`~derive.kernel.primitives` the sixteen primitive rules (:mod:`~derive.kernel.limit_laws`,
  :mod:`~derive.kernel.lemmas`, :mod:`~derive.kernel.permutations` and :mod:`~derive.kernel.sum_moves` hold
  five of them),
  each with its soundness argument and the
  side conditions checked on every use;
* :mod:`~derive.kernel.evaluate`   an independent mpmath evaluation of sympy trees (the second witness);
* :mod:`~derive.kernel.points`     where the witness evaluates: random and special points;
* :mod:`~derive.kernel.witness`    the witness's comparisons (agreement, stable counterexamples);
* :mod:`~derive.kernel.limits`     hard CPU-time limits;
* :mod:`~derive.kernel.rule`       the interface of a rule (no logic).

Untrusted, and treated as such by the kernel: the catalog (``derive/transformer``),
every rule that is not primitive (:class:`~derive.rules.Evaluate`,
:class:`~derive.rules.Transform`, the catalog's own rules, users' rules),
sympy's ``doit()`` closed forms, the renderers, the cache, the CLI, the Sphinx
extension and the pytest plugin. They *propose*; the kernel decides.

What the kernel trusts from outside: sympy's arithmetic and simplification
(a bug there could prove a false step — which is why a second, independent
witness must agree), mpmath's elementary functions and quadrature, and the
Python interpreter. What *proved* means for a reader is the docs page
"What proved means" (``docs/proved.md``).
"""
