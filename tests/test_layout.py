"""The code's layout shows its design: no import circles between Python modules, between the
Python package's subpackages (they form layers: scenario, analysis, api, emulation,
experiments, measure, reproductions, cli), or between a Rust crate's top-level modules; and
every Python module opens with a docstring of its role.

Imports are read from the source (every ``import``, also inside functions and under
``TYPE_CHECKING``), not from what an interpreter happened to load."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "python" / "airtcp"
CRATES = ROOT / "crates"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def python_imports() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports."""
    sources = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(sources) | {"airtcp._core"}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in sources.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[name] |= {alias.name for alias in node.names if alias.name in modules}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    # `from . import x` imports the module x; `from .m import f`, module m.
                    target = f"{source}.{alias.name}"
                    if target in modules:
                        graph[name].add(target)
                    elif source in modules:
                        graph[name].add(source)
        graph[name].discard(name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected components of more than one node (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_python_modules_import_no_circle():
    graph = python_imports()
    # The reader sees imports at all: relative, nested and absolute ones.
    assert "airtcp.cli.run" in graph["airtcp.cli.main"]
    assert "airtcp.scenario.schema" in graph["airtcp.api"]
    assert circles(graph) == []


def _layer(module: str) -> str:
    """A subpackage, or a module at the package's top (``api``, ``output``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "airtcp"


def test_python_subpackages_form_layers():
    """Between subpackages too: a module of `measure` may use `emulation`, and then nothing
    in `emulation` may use `measure`, even through another module."""
    layers: dict[str, set[str]] = {}
    for module, targets in python_imports().items():
        layer = _layer(module)
        layers.setdefault(layer, set())
        layers[layer] |= {_layer(t) for t in targets} - {layer}
    assert {"scenario", "cli", "experiments", "emulation", "measure"} <= set(layers)
    assert circles(layers) == []
    # The command line sits on top: nothing else imports it.
    assert [layer for layer, targets in layers.items() if "cli" in targets] == ["__main__"]


def test_every_python_module_opens_with_its_role():
    missing = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert missing == []


_CRATE_PATH = re.compile(r"\bcrate::(\w+)")
_SUPER_PATH = re.compile(r"\b((?:super::)+)(\w+)")
_COMMENT = re.compile(r"//[^\n]*")


def _rust_module_path(source: Path, root: Path) -> list[str]:
    parts = list(source.relative_to(root).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "mod" else parts


def rust_top_level_imports(crate: Path) -> dict[str, set[str]]:
    """A crate's top-level modules (``src/x.rs`` or ``src/x/``) and the others each one's
    code names through ``crate::`` or ``super::`` paths that leave it."""
    root = crate / "src"
    graph: dict[str, set[str]] = {}
    for source in root.rglob("*.rs"):
        path = _rust_module_path(source, root)
        if path in (["lib"], ["main"]) or source.parent.name == "bin":
            continue
        top = path[0]
        names = graph.setdefault(top, set())
        # Code only: a doc comment naming another module (`crate::x`) is no import.
        text = _COMMENT.sub("", source.read_text(encoding="utf-8"))
        names |= set(_CRATE_PATH.findall(text))
        for supers, name in _SUPER_PATH.findall(text):
            # A file's own module is `path`; each `super` goes one level up from it.
            up = supers.count("super::")
            if up == len(path):
                names.add(name)
        names.discard(top)
    return {module: targets & set(graph) for module, targets in graph.items()}


def test_rust_crates_top_level_modules_import_no_circle():
    crates = sorted(path for path in CRATES.iterdir() if (path / "src").is_dir())
    assert len(crates) >= 4
    sim = rust_top_level_imports(CRATES / "airtcp-sim")
    assert "sim" in sim and "wlan" in sim["sim"]  # the reader sees `crate::` paths
    for crate in crates:
        assert circles(rust_top_level_imports(crate)) == [], crate.name
