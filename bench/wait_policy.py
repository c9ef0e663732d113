"""Imported by every benchmark before NumPy, PyTorch or tandem: gives their OpenMP threads the same idle policy.

tandem sets OMP_WAIT_POLICY=PASSIVE (idle workers sleep) when it is imported (python/tandem/__init__.py), but a
benchmark imports PyTorch first, whose OpenMP runtime then starts with spinning idle workers. Between PyTorch's
parallel regions those workers hold the cores that tandem's next 2-thread call needs: in bench/run.py a one-token
bfloat16 Linear took 411 us at 2 threads against 210 us at 1 (145 us with sleeping workers), and a 512x512 solve
in linalg_bench 12 ms instead of 4.5 ms. Setting the policy before any runtime loads makes the 2-thread rows
measure the libraries, not their idle threads. The environment's own setting wins (setdefault).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
