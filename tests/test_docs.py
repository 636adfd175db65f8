"""What a reader of the documentation and the README sees: the README's figures match the
benchmark records, the README's and the user guide's code runs, the docs carry their math."""

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from weakcvx.bench.readme import END, START, figures_block, update_readme

ROOT = Path(__file__).resolve().parent.parent


def test_readme_figures_are_those_of_the_records():
    # fails when a record under reproduction/full changed and the README was not regenerated
    # (python -m weakcvx.bench.readme), or when someone edited the block by hand
    assert update_readme(ROOT / "README.md", ROOT / "reproduction" / "full", check=True)


def test_update_readme_rewrites_a_drifted_block(tmp_path):
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text()
    head, rest = text.split(START)
    _, tail = rest.split(END)
    readme.write_text(f"{head}{START}\n| `bench mkl` | 0.41 s vs 39.1 s (96x) |\n{END}{tail}")
    records = ROOT / "reproduction" / "full"
    assert not update_readme(readme, records, check=True)
    assert "96x" in readme.read_text()  # --check does not write
    assert not update_readme(readme, records)
    new = readme.read_text()
    assert "96x" not in new and figures_block(records) in new
    assert new.startswith(head) and new.endswith(tail)  # only the block changed
    assert update_readme(readme, records, check=True)


def test_update_readme_needs_its_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no block here\n")
    with pytest.raises(ValueError, match="must hold one <!-- figures:start -->"):
        update_readme(readme, ROOT / "reproduction" / "full")


def test_the_check_command_runs_as_documented():
    done = subprocess.run([sys.executable, "-m", "weakcvx.bench.readme", "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "unchanged" in done.stdout


def test_the_figures_follow_the_records(tmp_path):
    """A changed record changes the README's figure: the block is computed, not copied."""
    import json

    records = tmp_path / "records"
    shutil.copytree(ROOT / "reproduction" / "full", records)
    mkl = json.loads((records / "mkl.json").read_text())
    for r in mkl["records"]:
        r["speedup"] = 12345.0
    (records / "mkl.json").write_text(json.dumps(mkl))
    assert "**12345x**" in figures_block(records)
    assert "**12345x**" not in figures_block(ROOT / "reproduction" / "full")


def _rst_python_blocks(path):
    text = path.read_text()
    return [textwrap.dedent(b) for b in
            re.findall(r"\.\. code-block:: python\n\n((?:(?: {3,}.*)?\n)+)", text)]


def test_user_guide_code_runs(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    blocks = _rst_python_blocks(ROOT / "docs" / "user_guide.rst")
    assert len(blocks) >= 5
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/user_guide.rst", "exec"), namespace)
    # the conversion the guide teaches gives scikit-learn's convention
    assert set(namespace["y"].tolist()) == {-1, 0, 1}
    assert len(namespace["cv"]) == 3 and all(
        (namespace["y"][test] != -1).all() for _, test in namespace["cv"])


def test_design_page_exists_for_every_citation():
    """Every "docs/design.rst §N" cited in the code and docs names a section of the page."""
    design = (ROOT / "docs" / "design.rst").read_text()
    sections = set(re.findall(r"^(\d+(?:\.\d+)?)\.? ", design, flags=re.M))
    cited = set()
    for path in list((ROOT / "weakcvx").rglob("*.py")) + list((ROOT / "docs").glob("*.rst")):
        text = path.read_text()
        assert "DESIGN.md" not in text, f"{path} cites DESIGN.md, which does not ship"
        for match in re.finditer(r"docs/design\.rst((?: §\d+(?:\.\d+)?,?)+)", text):
            cited |= set(re.findall(r"§(\d+(?:\.\d+)?)", match.group(1)))
    assert cited and cited <= sections, sorted(cited - sections)


@pytest.mark.slow  # ~1-2 min: Sphinx without running the gallery
def test_docs_build_with_w_and_math_offline(tmp_path):
    out = tmp_path / "html"
    # without the gallery run its images do not exist: the pages that show them would warn
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                           "-D", "sphinx_gallery_conf.plot_gallery=0",
                           "-D", "suppress_warnings=image.not_readable", str(ROOT / "docs"),
                           str(out)], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    pages = list(out.rglob("*.html"))
    assert (out / "design.html").exists() and (out / "user_guide.html").exists()
    for page in pages:
        html = page.read_text(errors="replace")
        assert not re.search(r"https?://[^\"']*mathjax", html, flags=re.I), page
    assert (out / "_static" / "mathjax" / "tex-chtml.js").exists()
    assert 'src="_static/mathjax/tex-chtml.js"' in (out / "ladder.html").read_text()
