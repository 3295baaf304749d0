"""The package's modules import one another in one direction only: no cycle, not even inside a function or for type checking."""

import ast
from pathlib import Path
from typing import Dict, List, Set

import tempmail

PACKAGE = Path(tempmail.__file__).parent


def imports_of(path: Path) -> Set[str]:
    """The package's modules a module imports, wherever in it the import stands."""
    found: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [alias.name for alias in node.names]
            found.update(name.split(".")[0] for name in names if name)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tempmail."):
            found.add((node.module or "").split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("tempmail."))
    return found & {module.stem for module in PACKAGE.glob("*.py")}


def test_no_module_of_the_package_imports_one_that_imports_it_back() -> None:
    graph: Dict[str, Set[str]] = {path.stem: imports_of(path) for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    assert "inbox" in graph["client"] and graph["inbox"]  # the walk sees the imports it judges
    cycles: List[List[str]] = []

    def visit(module: str, trail: List[str]) -> None:
        if module in trail:
            cycles.append(trail[trail.index(module) :] + [module])
            return
        for imported in sorted(graph.get(module, set()) - {"__init__"}):
            visit(imported, trail + [module])

    for module in sorted(graph):
        visit(module, [])
    assert cycles == []
