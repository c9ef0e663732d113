// Which gradient formulas hold for complex tensors. A formula written for real numbers is usually wrong for
// complex ones (PyTorch's convention needs conj(f'(z)), see formulas_complex.cpp), and an op that gains a
// complex forward would otherwise get it silently. So set_history lets complex tensors into a node only when
// its formula is listed here, after being checked against PyTorch (tests/python/test_complex_autograd.py).
#include <string_view>
#include <unordered_set>

#include "autograd/node.h"
#include "core/error.h"

namespace tandem::autograd {
namespace {

const std::unordered_set<std::string_view>& complex_checked_nodes() {
  static const std::unordered_set<std::string_view> names = {
      // elementwise (formulas_elementwise.cpp): grad * conj(f'(z))
      "AddBackward0", "SubBackward0", "RsubBackward1", "MulBackward0", "DivBackward0", "NegBackward0",
      "AbsBackward0", "ExpBackward0", "LogBackward0", "SqrtBackward0", "SinBackward0", "CosBackward0",
      "TanhBackward0", "SigmoidBackward0", "TanBackward0", "SinhBackward0", "CoshBackward0", "AsinBackward0",
      "AcosBackward0", "AtanBackward0", "AsinhBackward0", "AcoshBackward0", "AtanhBackward0",
      "Log1PBackward0", "Expm1Backward0", "Log2Backward0", "Log10Backward0", "Exp2Backward0",
      "RsqrtBackward0", "SincBackward0", "PowBackward0", "PowBackward1", "PowBackward2", "WhereBackward0",
      "LogaddexpBackward0",
      // matrix products (formulas_linalg.cpp): g @ b^H, a^H @ g
      "MmBackward0", "BmmBackward0", "MvBackward0", "DotBackward0", "AddmmBackward0",
      // complex numbers (formulas_complex.cpp); SelectBackward0 is also .real/.imag
      "ConjBackward0", "ViewAsRealBackward0", "ViewAsComplexBackward0", "AngleBackward0", "PolarBackward0",
      "ComplexBackward0", "MatmulBackward0", "SgnBackward0",
      // reductions and scans (formulas_reduce.cpp, ops/scan.cpp); var/std are real: 2 g (z - mean) / dof
      "CumsumBackward0", "CumprodBackward0", "ProdBackward0", "ProdBackward1", "VarBackward0", "StdBackward0",
      "LogsumexpBackward0", "LogcumsumexpBackward0",
      // linear maps: reductions, copies, views, indexing and joins (the gradient moves or adds elements)
      "SumBackward0", "SumBackward1", "MeanBackward0", "MeanBackward1", "ToCopyBackward0", "CloneBackward0",
      "torch::autograd::CopyBackwards", "FillBackward2", "ZeroBackward0", "AliasBackward0", "ViewBackward0",
      "UnsafeViewBackward0", "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
      "PermuteBackward0", "TransposeBackward0", "TBackward0", "ExpandBackward0", "SliceBackward0",
      "SelectBackward0", "SliceBackwardBackward0", "SelectBackwardBackward0", "UnfoldBackward0",
      "AsStridedBackward0", "AsStridedBackward1", "AsStridedScatterBackward0", "torch::autograd::CopySlices",
      "FlipBackward0", "CatBackward0", "StackBackward0", "IndexBackward0", "IndexPutBackward0",
      "GatherBackward0", "ScatterBackward0", "ScatterBackward1", "ScatterAddBackward0",
      "IndexSelectBackward0", "IndexCopyBackward0", "IndexFillBackward0", "IndexFillBackward1",
      "TakeBackward0", "MaskedFillBackward0", "MaskedFillBackward1", "MaskedSelectBackward0",
      "MaskedScatterBackward0", "IndexAddBackward0",
      // tandem.fft (formulas_fft.cpp, from the fft branch; its tests gradcheck them in complex128)
      "FftC2CBackward0", "FftR2CBackward0", "FftC2RBackward0",
      // tandem.linalg (formulas_linalg_decomp.cpp: PyTorch's formulas with conjugate transposes; gradcheck'ed
      // in complex128 and compared with PyTorch's gradients in tests/python/test_linalg_complex.py)
      "LinalgSolveExBackward0", "LinalgSolveTriangularBackward0", "LinalgDetBackward0",
      "LinalgSlogdetBackward0", "LinalgCholeskyExBackward0", "LinalgQrBackward0", "LinalgEighBackward0",
      "LinalgSvdBackward0", "LinalgEigBackward0", "LinalgLuFactorExBackward0", "LinalgLuSolveBackward0",
      "CholeskySolveBackward0",
      // formulas_linalg_householder.cpp (gradcheck'ed in complex128 and compared with PyTorch in
      // tests/python/test_linalg_householder.py); GeqrfBackward0 and NotImplemented only raise.
      "LinalgHouseholderProductBackward0", "OrmqrBackward0", "GeqrfBackward0",
      "torch::autograd::NotImplemented"};
  return names;
}

}  // namespace

void check_complex_formula(const Node& node) {
  const std::string name = node.name();
  TANDEM_CHECK(complex_checked_nodes().count(name), NotImplemented, "the derivative of ", name,
               " is not implemented for complex tensors in tandem (its formula was written for real numbers)"
               "\nhint: run this op under tandem.no_grad() or on .detach()ed inputs; to add it, check its "
               "formula for complex inputs against PyTorch and list it in src/autograd/complex_formulas.cpp");
}

}  // namespace tandem::autograd
