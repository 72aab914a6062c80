"""The compiled half of the solver: one C extension per variant family.

Everything else about the distribution lives in pyproject.toml. Each
``engine/solver/native/<family>.c`` becomes the module ``engine.solver._<family>``;
the search runs there because proving a deal lost takes millions of positions,
which the interpreter cannot search within the product's budgets (docs/solver.md).
"""

from pathlib import Path

from setuptools import Extension, setup

NATIVE = Path("engine/solver/native")

setup(
    ext_modules=[
        Extension(
            f"engine.solver._{source.stem}",
            sources=[str(source)],
            depends=[str(header) for header in sorted(NATIVE.glob("*.h"))],
            extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"],
        )
        for source in sorted(NATIVE.glob("*.c"))
    ]
)
