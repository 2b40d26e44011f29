"""Package discovery: every dialect folder under ``translator/dialects`` ships without being
listed; grammars and templates ship inside the package as ``translator.grammars`` and
``translator.templates`` (metadata is in pyproject.toml)."""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["translator", "translator.*", "validation", "validation.*"]),
        "translator.grammars",
        "translator.templates",
    ],
    package_dir={"translator.grammars": "grammars", "translator.templates": "templates"},
    package_data={"translator.grammars": ["*.toml"], "translator.templates": ["*/*.j2"]},
)
