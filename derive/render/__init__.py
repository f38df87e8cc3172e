"""Renderers: one module per output target, all fed by the same Derivation.

* :mod:`derive.render.text` -- the terminal (``derive show``, ``derive check``);
* :mod:`derive.render.latex` -- LaTeX equation chains;
* :mod:`derive.render.markdown` -- Markdown with ``$$`` math (MyST, notebooks).
* :mod:`derive.render.beamer` -- Beamer frames (one step per overlay) and decks;
* :mod:`derive.render.slides_md` -- reveal.js and Marp Markdown decks (one step per fragment);
* :mod:`derive.render.svg` -- SVG 1.1 / PNG without TeX (ziamath, cairosvg);
* :mod:`derive.render.mathml` -- presentation MathML;
* :mod:`derive.render.html` -- HTML for Jupyter (``_repr_html_``).
"""
