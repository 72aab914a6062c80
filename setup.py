"""The compiled parts of the engine and the solver, as C extensions.

Everything else about the distribution lives in pyproject.toml. Each
``engine/solver/native/<family>.c`` becomes the module ``engine.solver._<family>``;
the search runs there because proving a deal lost takes millions of positions,
which the interpreter cannot search within the product's budgets (docs/solver.md).
Each ``engine/native/<name>.c`` becomes ``engine._<name>``: the legal moves of a
position, which every view the server sends lists (docs/engine.md).
"""

from pathlib import Path

from setuptools import Extension, setup

NATIVE = {Path("engine/solver/native"): "engine.solver", Path("engine/native"): "engine"}

setup(
    ext_modules=[
        Extension(
            f"{package}._{source.stem}",
            sources=[str(source)],
            depends=[str(header) for header in sorted(folder.glob("*.h"))],
            extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"],
        )
        for folder, package in NATIVE.items()
        for source in sorted(folder.glob("*.c"))
    ]
)
