"""scikit-learn's array API dispatch on tandem tensors: estimators fitted on float64 tandem tensors (through
tandem.array_api, including its linalg extension) give NumPy's results, as tandem tensors on the input's device.

scikit-learn refuses dispatch unless SCIPY_ARRAY_API=1 is set; it is set here before sklearn is imported (scipy
reads it at import, so a session that imported scipy earlier without it still passes sklearn's check, and these
estimators call only the namespace's functions on tandem arrays)."""
import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tandem  # noqa: E402

sklearn = pytest.importorskip("sklearn")
pytest.importorskip("scipy")
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402


def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(60)
    labels = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(60) > 0).astype(np.int64)
    labels[X[:, 2] > 1.0] = 2  # three classes
    return X, y, labels


def _fit_on(device, make, fit_args):
    """The estimator fitted on NumPy, and the same estimator fitted on tandem tensors with dispatch on; an
    estimator this sklearn does not support under array API dispatch skips the test with sklearn's reason."""
    reference = make().fit(*fit_args)
    tensors = [tandem.tensor(a, device=device) for a in fit_args]
    with sklearn.config_context(array_api_dispatch=True):
        try:
            model = make().fit(*tensors)
        except (NotImplementedError, TypeError, ValueError) as e:
            if "array api" in str(e).lower() or "array_api" in str(e).lower():
                pytest.skip(f"sklearn {sklearn.__version__} does not support this under array API: {e}")
            raise
    return reference, model, tensors


def _same(t, expected, device, rtol=1e-7, atol=1e-9):
    assert isinstance(t, tandem.Tensor)
    assert t.device == tandem.device(device)
    assert t.dtype == tandem.float64
    np.testing.assert_allclose(t.cpu().numpy(), expected, rtol=rtol, atol=atol)


def test_pca_full_svd(device):
    X, _, _ = _data()
    reference, model, (Xt,) = _fit_on(device, lambda: PCA(n_components=3, svd_solver="full"), (X,))
    _same(model.components_, reference.components_, device)
    _same(model.explained_variance_, reference.explained_variance_, device)
    _same(model.mean_, reference.mean_, device)
    with sklearn.config_context(array_api_dispatch=True):
        _same(model.transform(Xt), reference.transform(X), device)
        _same(model.inverse_transform(model.transform(Xt)), reference.inverse_transform(reference.transform(X)),
              device)


@pytest.mark.filterwarnings("ignore:Using Array API dispatch:UserWarning")  # auto means svd under dispatch
@pytest.mark.parametrize("solver", ["svd", "auto"])
def test_ridge(device, solver):
    X, y, _ = _data()
    reference, model, (Xt, _) = _fit_on(device, lambda: Ridge(alpha=0.5, solver=solver), (X, y))
    _same(model.coef_, reference.coef_, device)
    assert float(model.intercept_) == pytest.approx(float(reference.intercept_), rel=1e-9, abs=1e-12)
    with sklearn.config_context(array_api_dispatch=True):
        _same(model.predict(Xt), reference.predict(X), device)


def test_linear_discriminant_analysis(device):
    X, _, labels = _data()
    reference, model, (Xt, _) = _fit_on(device, LinearDiscriminantAnalysis, (X, labels))
    _same(model.coef_, reference.coef_, device, rtol=1e-6)
    with sklearn.config_context(array_api_dispatch=True):
        predicted = model.predict(Xt)
        assert isinstance(predicted, tandem.Tensor) and predicted.device == tandem.device(device)
        np.testing.assert_array_equal(predicted.cpu().numpy(), reference.predict(X))
        _same(model.predict_proba(Xt), reference.predict_proba(X), device, rtol=1e-6)
        _same(model.transform(Xt), reference.transform(X), device, rtol=1e-6, atol=1e-8)
