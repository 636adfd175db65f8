"""Every ``from weakcvx... import name`` in the package, module level or inside a function,
names something that exists: a lazy import inside a benchmark or an estimator is only run
when that path is taken, so a name removed by a refactoring breaks it silently until then
(``bench pl`` imported a removed ``datasets._standardize`` for a day)."""

import ast
import importlib
import pathlib

import weakcvx

PACKAGE = pathlib.Path(weakcvx.__file__).parent


def _imports():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        package = ".".join(parts[:-1])  # the package a relative import starts from
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "weakcvx":
                continue
            for alias in node.names:
                yield path.relative_to(PACKAGE.parent), node.lineno, module, alias.name


def test_every_import_from_the_package_resolves():
    missing = []
    for path, line, module, name in _imports():
        mod = importlib.import_module(module)
        if name == "*" or hasattr(mod, name):
            continue
        try:
            importlib.import_module(f"{module}.{name}")
        except ModuleNotFoundError:
            missing.append(f"{path}:{line}: from {module} import {name}")
    assert not missing, "\n".join(missing)


def test_the_check_sees_lazy_imports():
    """The scan reaches imports inside functions (bench pl's loader imports lazily)."""
    found = {(module, name) for _, _, module, name in _imports()}
    assert ("weakcvx.datasets", "load_multiclass") in found
