"""tandem.cuda.sparse, as torch.cuda.sparse: the module path exists; tandem has no legacy sparse CUDA tensor
types to put in it (sparse tensors are made with tandem.sparse_coo_tensor and friends)."""
