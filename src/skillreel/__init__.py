"""skillreel: one human demonstration -> a reviewed, parameterised, deterministic web skill."""

__version__ = "0.1.0"
