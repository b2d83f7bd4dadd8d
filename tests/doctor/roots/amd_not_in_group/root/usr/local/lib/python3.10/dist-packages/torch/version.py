from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '2.5.1+rocm6.2'
debug = False
cuda: Optional[str] = None
git_version = '0123456789abcdef'
hip: Optional[str] = '6.2.41133-dd7f95766'
