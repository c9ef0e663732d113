// tandem._cpu_features: the CPU capability this process can run, asked before tandem._C loads (and with it
// OpenBLAS, which picks its kernels once, as it loads: tandem/_blas_core.py). Plain CPython API and no link
// to the rest of tandem, so importing it loads nothing else.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "kernels/cpu_features.h"

namespace {

// "avx512", "avx2" or "baseline": the best of tandem's CPU capabilities that CPUID and XGETBV allow.
PyObject* capability(PyObject*, PyObject*) {
  const char* name = tandem::cpu_features::runs_avx512() ? "avx512"
                     : tandem::cpu_features::runs_avx2() ? "avx2"
                                                         : "baseline";
  return PyUnicode_FromString(name);
}

PyMethodDef methods[] = {{"capability", capability, METH_NOARGS,
                          "The best CPU capability this process runs: avx512, avx2 or baseline."},
                         {nullptr, nullptr, 0, nullptr}};  // the end of the table

PyModuleDef module = {PyModuleDef_HEAD_INIT,
                      "_cpu_features",
                      "CPU features, read before tandem._C loads.",
                      -1,
                      methods,
                      nullptr,
                      nullptr,
                      nullptr,
                      nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__cpu_features() { return PyModule_Create(&module); }
