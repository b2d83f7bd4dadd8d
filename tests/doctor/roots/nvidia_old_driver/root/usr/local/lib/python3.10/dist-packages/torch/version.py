from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '2.9.0'
debug = False
cuda: Optional[str] = '13.0'
git_version = '0123456789abcdef'
hip: Optional[str] = None
