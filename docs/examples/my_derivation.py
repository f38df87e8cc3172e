"""A derivation of your own: (x + y)² = x² + 2xy + y², step by step.

Check it with ``derive check --module docs/examples/my_derivation.py``; the docs load it through
``derive_modules`` in ``conf.py`` and render it on the getting-started page.
"""

import sympy as sp

from derive import Derivation, Step, ValueCheck

x, y = sp.symbols("x y", real=True)

square_of_sum = Derivation(
    name="mine.square-of-sum",
    title="Square of a sum",
    summary="(x + y)² = x² + 2xy + y² for all real x and y.",
    start=(x + y) ** 2,
    steps=(
        Step(x * (x + y) + y * (x + y), "distribute the right factor over the left sum"),
        Step(x**2 + 2 * x * y + y**2, "multiply out and collect the two equal cross terms $xy$"),
    ),
    checks=(ValueCheck("(1 + 1/2)² at x = 1, y = 1/2", (1 + sp.Rational(1, 2)) ** 2, "2.25", "arithmetic"),),
)
