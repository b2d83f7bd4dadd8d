__version__ = "1.20.1"
