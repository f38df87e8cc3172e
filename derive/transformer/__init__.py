"""The catalog: the Transformer's mathematics as registered derivations.

One module per topic; each registers builders with
:func:`derive.registry.register`. Symbols and their LaTeX spellings come from
:mod:`derive.transformer.notation` so code, docs and slides agree.
"""
