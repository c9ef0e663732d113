"""scikit-learn on tandem tensors through the Array API standard: with `array_api_dispatch=True`, sklearn finds
`tandem.array_api` from `t.__array_namespace__()` and fits PCA, Ridge and LinearDiscriminantAnalysis with tandem's
ops (its SVD and solvers from tandem.linalg), returning tandem tensors on the input's device. The script fits each
on the same data as NumPy arrays too and prints the largest difference.

Run: PYTHONPATH=python python examples/sklearn_array_api.py [--device cpu|cuda:0]
(an emulated cuda device works too: TANDEM_EMULATE_CUDA=1 ... --device cuda:0)
"""
import argparse
import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # sklearn refuses dispatch without it; set before sklearn/scipy load

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402

import tandem  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    device = parser.parse_args().device

    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 8))
    y = X @ rng.standard_normal(8) + 0.1 * rng.standard_normal(200)
    labels = (X[:, 0] - X[:, 1] > 0).astype(np.int64)
    Xt, yt, labels_t = (tandem.tensor(a, device=device) for a in (X, y, labels))

    with sklearn.config_context(array_api_dispatch=True):
        pca = PCA(n_components=3, svd_solver="full").fit(Xt)
        ridge = Ridge(alpha=1.0, solver="svd").fit(Xt, yt)
        lda = LinearDiscriminantAnalysis().fit(Xt, labels_t)
        results = {"PCA.transform": (pca.transform(Xt), PCA(n_components=3, svd_solver="full").fit(X).transform(X)),
                   "Ridge.predict": (ridge.predict(Xt), Ridge(alpha=1.0, solver="svd").fit(X, y).predict(X)),
                   "LDA.predict_proba": (lda.predict_proba(Xt),
                                         LinearDiscriminantAnalysis().fit(X, labels).predict_proba(X))}
    for name, (ours, numpy_result) in results.items():
        diff = np.abs(ours.cpu().numpy() - numpy_result).max()
        print(f"{name:18s} {type(ours).__name__} on {ours.device}, shape {tuple(ours.shape)}, "
              f"max |tandem - numpy| = {diff:.2e}")


if __name__ == "__main__":
    main()
