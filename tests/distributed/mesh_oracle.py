"""PyTorch's transcript of mesh_transcript.py (the oracle): each of the 8 ranks in turn, in this one process, on
PyTorch's fake backend (no communication: group making needs none, and the transcript makes no collective call).
Writes [transcript of rank 0, ..., of rank 7] as JSON to argv[1]."""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.device_mesh as device_mesh
from torch.testing._internal.distributed.fake_pg import FakeStore

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mesh_transcript import WORLD, transcript  # noqa: E402

transcripts = []
for rank in range(WORLD):
    dist.init_process_group("fake", rank=rank, world_size=WORLD, store=FakeStore())
    transcripts.append(transcript(dist, device_mesh, torch))
    dist.destroy_process_group()
with open(sys.argv[1], "w") as f:
    json.dump(transcripts, f)
