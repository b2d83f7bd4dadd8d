from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '2.4.0'
debug = False
cuda: Optional[str] = '12.1'
git_version = '0123456789abcdef'
hip: Optional[str] = None
