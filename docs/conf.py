"""Sphinx configuration of the weakcvx documentation.

Build: ``sphinx-build -W -b html docs docs/_build/html`` (with the ``docs`` extra installed).
Every script in ``examples/`` runs and renders its figures into the gallery (about a minute
in all on a 2-core machine), in CI too.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import weakcvx  # noqa: E402


def _write_cli_help():
    """The ``--help`` texts of the command, regenerated at every build (docs/cli.rst)."""
    import contextlib
    import io

    from weakcvx.cli import main

    out = io.StringIO()
    for argv in (["--help"], ["compare", "--help"], ["bench", "--help"]):
        out.write(f"$ weakcvx {' '.join(argv)}\n")
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(argv)
        out.write("\n")
    target = Path(__file__).parent / "_generated" / "cli_help.txt"
    target.parent.mkdir(exist_ok=True)
    target.write_text(out.getvalue())


_write_cli_help()

project = "weakcvx"
author = "the weakcvx authors"
copyright = "2026, the weakcvx authors"
version = release = weakcvx.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    # MathJax shipped with the build (copied into _static/mathjax), not loaded from a CDN: the
    # pages render their math offline
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

exclude_patterns = ["_build", "_generated", "gen_modules", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]
templates_path = []

# numpydoc: no autosummary tables of members (autodoc lists them), no cross-reference guessing
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "inherited-members": False}
autosummary_generate = False


sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"plot_.*\.py$",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "show_memory": False,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "default_thumb_file": None,
    "reset_modules": ("matplotlib",),
    "min_reported_time": 0,
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("weakcvx",),
    # the execution-times pages load their table scripts from a CDN: not built, so that the
    # documentation reads offline
    "write_computation_times": False,
}


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods: documented by scikit-learn."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)

html_theme = "pydata_sphinx_theme"
html_title = "weakcvx"
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = []
mathjax3_config = {"tex": {"macros": {"R": r"\mathbb{R}"}}}
