"""_kernels."""
