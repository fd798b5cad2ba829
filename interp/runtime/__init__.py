"""Where code runs: the Jupyter kernels behind a small seam (`kernel_api`), their launch and guard, their output, and
the sandbox that confines them."""
