"""The package's own tests load its pytest plugin from the source tree, unless its installed entry point loaded it already."""

import sys
from typing import List

pytest_plugins: List[str] = [] if "tempmail.pytest_plugin" in sys.modules else ["tempmail.pytest_plugin"]
