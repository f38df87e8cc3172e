"""Renderers: one module per output target, all fed by the same Derivation.

* :mod:`derive.render.text` -- the terminal (``derive show``, ``derive check``);
* :mod:`derive.render.latex` -- LaTeX equation chains;
* :mod:`derive.render.markdown` -- Markdown with ``$$`` math (MyST, notebooks).
"""
