"""Errors raised by :mod:`derive`.

Policy (as in latexify_py): every error that a user can cause derives from
:class:`DeriveError`; the command line turns it into one line on stderr and
exit status 2. Programming errors inside derive itself are not wrapped.
"""

from __future__ import annotations


class DeriveError(Exception):
    """Base class of every error a user of derive can cause."""


class UnknownDerivationError(DeriveError, KeyError):
    """A derivation name that is not registered.

    Raised by :func:`derive.registry.get`; the message names the closest
    registered names.
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ModuleLoadError(DeriveError):
    """A user module (file or importable name) that could not be loaded."""


class DerivationDefinitionError(DeriveError, ValueError):
    """A derivation whose definition is malformed (empty chain, wrong types...)."""


class InputError(DeriveError, ValueError):
    """Bad input from a file or the command line (sizes, JSON, paths)."""


class MissingDependencyError(DeriveError):
    """An optional dependency is not installed (e.g. ziamath or cairosvg for ``derive export --format svg``).

    The message names the package and how to install it: :data:`SLIDES_INSTALL` for the ``slides``
    extra. The hint points at the checkout, never at PyPI, where ``derive`` is an unrelated package.
    """


#: How to install the ``slides`` extra (ziamath, cairosvg): from the derive checkout, not from PyPI
#: (a project called ``derive`` there is another package).
SLIDES_INSTALL = 'pip install -e ".[slides]" from the root of the derive checkout'
