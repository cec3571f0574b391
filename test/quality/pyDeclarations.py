"""Oracle for the structural quality score: Python's own `ast` lists the declarations of files.

Usage (run by test/quality/structuralOracle.ts through execFile, never through a shell):
  python3 pyDeclarations.py --stdlib      prints the standard library folder of this Python
  python3 pyDeclarations.py < paths.json  reads a JSON list of file paths on stdin and prints
                                          {"python": version, "files": {path: result}} where
                                          result is {"declarations": [...]} or {"error": "..."}

A declaration is what SPEC section 6 lists for Python: every `class` and every `def` /
`async def`, wherever it is written (module level, class bodies, function bodies, if/try/with
blocks). Lambdas are expressions, not declarations, and are not listed. `line` is `lineno`,
which since Python 3.8 is the line of the `class`/`def`/`async` keyword, after decorators.
`qualifiedName` joins the enclosing classes and functions with dots (not `<locals>`).
`kind` is class, function, method (a def directly in a class body), constructor (`__init__`)
or accessor (a method decorated with `property` or `<name>.setter/getter/deleter`).
"""

import ast
import json
import sys
import sysconfig


def decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def kind_of(node, parent):
    if isinstance(node, ast.ClassDef):
        return "class"
    if not isinstance(parent, ast.ClassDef):
        return "function"
    if node.name == "__init__":
        return "constructor"
    decorators = [decorator_name(d) for d in node.decorator_list]
    if "property" in decorators or any(d in ("setter", "getter", "deleter") for d in decorators):
        return "accessor"
    return "method"


def declarations(tree):
    found = []

    def visit(node, parent, scope):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                qualified = scope + [child.name]
                found.append({
                    "name": child.name,
                    "qualifiedName": ".".join(qualified),
                    "kind": kind_of(child, parent),
                    "line": child.lineno,
                })
                visit(child, child, qualified)
            else:
                # Statements such as if/try/with keep the enclosing declaration as parent.
                visit(child, parent, scope)

    visit(tree, None, [])
    return found


def main():
    if "--stdlib" in sys.argv:
        print(sysconfig.get_paths()["stdlib"])
        return
    paths = json.load(sys.stdin)
    files = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                source = handle.read()
            files[path] = {"declarations": declarations(ast.parse(source, filename=path))}
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError) as error:
            files[path] = {"error": f"{type(error).__name__}: {error}"}
    json.dump({"python": sys.version.split()[0], "files": files}, sys.stdout)


if __name__ == "__main__":
    main()
