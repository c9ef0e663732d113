"""send_object_list / recv_object_list: picklable objects point to point. Each object is pickled (or saved with
tandem.save for weights_only=True) into bytes. The sender makes three ordinary send()s: a fixed-size header
(object count, total bytes), the byte count of each object, then the bytes. The header tells the receiver how
much the next two messages hold, so a receiver whose list has the wrong length still takes all three (the
ranks stay in step) before it raises. Unpickling runs pickle: only exchange objects
between processes you trust (weights_only=True restricts what the receiver will load)."""
import io
import pickle

import numpy as np

import tandem
from tandem.distributed import distributed_c10d as c10d

__all__ = ["recv_object_list", "send_object_list"]


def _peer(pg, global_rank, group_rank, fn):
    """The group rank of the peer given as a global rank or as a group rank (exactly one of them)."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        return int(group_rank)
    if global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    return c10d._group_rank(pg, global_rank, fn)


def _check_not_self(pg, peer, kind):
    if pg.rank() == peer:
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the current "
                         "process.")


def _serialize(obj, weights_only):
    if weights_only:
        buffer = io.BytesIO()
        tandem.save(obj, buffer)
        data = buffer.getvalue()
    else:
        data = pickle.dumps(obj)
    return np.frombuffer(data, dtype=np.uint8)


def _deserialize(data, weights_only):
    if weights_only:
        return tandem.load(io.BytesIO(data), weights_only=True)
    return pickle.loads(data)


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False,
                     weights_only=False):
    """Sends the objects of ``object_list`` to ``dst`` (a global rank) or ``group_dst`` (a rank of ``group``);
    the receiver passes a list of the same length to recv_object_list. ``device``: where the byte tensors
    travel from (host memory by default). ``use_batch`` changes nothing here: both paths post the same sends."""
    pg, member = c10d._resolve(group)
    if not member:
        return None
    peer = _peer(pg, dst, group_dst, "send_object_list")
    _check_not_self(pg, peer, "destination")
    if not object_list:  # PyTorch's own error (it unzips an empty list of (bytes, size) pairs)
        raise ValueError("not enough values to unpack (expected 2, got 0)\nhint: send_object_list needs at least "
                         "one object")
    payloads = [_serialize(obj, weights_only) for obj in object_list]
    device = tandem.device(device) if device is not None else tandem.device("cpu")
    sizes = [p.size for p in payloads]
    header = tandem.tensor([len(sizes), sum(sizes)], dtype=tandem.int64, device=device)
    c10d.send(header, group=group, group_dst=peer)
    c10d.send(tandem.tensor(sizes, dtype=tandem.int64, device=device), group=group, group_dst=peer)
    c10d.send(tandem.from_numpy(np.concatenate(payloads)).to(device), group=group, group_dst=peer)
    return None


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False,
                     weights_only=False):
    """Receives as many objects as ``object_list`` holds from ``src`` (a global rank) or ``group_src``, into
    ``object_list``; returns the sender's global rank (-1 on a rank outside ``group``). As in PyTorch 2.15 the
    source must be given: there is no receive-from-any-rank form."""
    pg, member = c10d._resolve(group)
    if not member:
        return -1
    peer = _peer(pg, src, group_src, "recv_object_list")
    _check_not_self(pg, peer, "source")
    if not object_list:
        raise ValueError("not enough values to unpack (expected 2, got 0)\nhint: recv_object_list needs a list "
                         "with one entry per object sent")
    device = tandem.device(device) if device is not None else tandem.device("cpu")
    header = tandem.empty(2, dtype=tandem.int64, device=device)
    sender = c10d.recv(header, group=group, group_src=peer)
    count, total = header.tolist()
    if count < 0 or total < 0:
        raise RuntimeError(f"recv_object_list: rank {sender} sent the header {[count, total]}, which is not one "
                           "of send_object_list's")
    sizes = tandem.empty(count, dtype=tandem.int64, device=device)
    data = tandem.empty(total, dtype=tandem.uint8, device=device)
    if c10d.recv(sizes, group=group, group_src=peer) != sender or c10d.recv(data, group=group,
                                                                            group_src=peer) != sender:
        raise AssertionError("Mismatch in return ranks for object sizes and objects.")
    if count != len(object_list):
        raise RuntimeError(f"recv_object_list: rank {sender} sent {count} object(s), but object_list has "
                           f"{len(object_list)} entries\nhint: pass a list as long as the sender's object_list")
    counts = sizes.tolist()
    if min(counts) < 0 or sum(counts) != total:
        raise RuntimeError(f"recv_object_list: rank {sender} sent object sizes {counts} that do not add up to "
                           f"its {total} bytes")
    raw = data.cpu().numpy().tobytes()
    at = 0
    for i, count in enumerate(counts):
        object_list[i] = _deserialize(raw[at:at + count], weights_only)
        at += count
    return sender
