"""Functions PyTorch removed in 1.9-2.x but still defines so that old programs stop with a message naming the
replacement (torch.qr, solve, eig, lstsq, symeig, matrix_rank): the same RuntimeError and text here."""

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def qr(input, some=True, *, out=None):
    raise RuntimeError(
        _REMOVED + "`torch.qr` is deprecated in favor of `torch.linalg.qr` and the boolean parameter `some` has been "
        "replaced with a string parameter `mode`.\n\nQ, R = torch.qr(A) should be replaced with:\nQ, R = "
        "torch.linalg.qr(A, mode='reduced')\n\nand\n\nQ, R = torch.qr(A, some=False) should be replaced with:\nQ, R "
        f"= torch.linalg.qr(A, mode='complete')\n\nSince `some` was set to {bool(some)}, use "
        f"mode='{'reduced' if some else 'complete'}'.")


def solve(input, A, *, out=None):
    raise RuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
        "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def eig(input, eigenvectors=False, *, e=None, v=None):
    raise RuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


def lstsq(input, A, *, out=None):
    raise RuntimeError(
        _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
        "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
        "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns of "
        "the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of "
        "the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution"
        "[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
        "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
        "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'.")


def install(namespace):
    """The removed functions under their torch.* names, where tandem defines nothing else by that name."""
    for fn in (qr, solve, eig, lstsq, symeig, matrix_rank):
        namespace.setdefault(fn.__name__, fn)
    # and as the Tensor methods PyTorch still defines (t.qr(), t.solve(A), ...); matrix_rank never was one
    tensor = namespace["Tensor"]
    for fn in (qr, solve, eig, lstsq, symeig):
        if not hasattr(tensor, fn.__name__):
            setattr(tensor, fn.__name__, fn)
