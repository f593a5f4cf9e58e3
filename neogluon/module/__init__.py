"""``mx.mod`` / ``mx.module``: MXNet 1.9.1's symbolic training API on neogluon's executor."""
from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule
from .python_module import PythonModule, PythonLossModule

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule", "PythonModule", "PythonLossModule"]
