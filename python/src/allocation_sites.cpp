// tandem.cuda.memory.record_allocation_sites: installs the provider that names the user's source line of each
// device allocation (backend/allocation_sites.h), and the sited listing behind memory_summary().
#include <nanobind/stl/string.h>

#include <string>

#include "backend/accelerator.h"
#include "backend/allocation_sites.h"
#include "bindings.h"

namespace tandem::py {

nb::object allocations_object(const std::vector<SitedAllocation>& allocations);  // errors.cpp

namespace {

// Set (under the GIL) when recording is switched on; read by the provider, which also runs under the GIL.
std::string package_prefix;  // ".../tandem/": frames in here are tandem's, not the user's
std::string cwd_prefix;      // stripped from sites so they read like "train.py:12"

std::string code_filename(PyCodeObject* code) {
  const char* text = PyUnicode_Check(code->co_filename) ? PyUnicode_AsUTF8(code->co_filename) : nullptr;
  if (!text) PyErr_Clear();
  return text ? text : "";
}

// file:line of the innermost Python frame outside the tandem package; "" when the allocating thread does not
// hold the GIL (then there is no Python caller to name) or every frame is tandem's.
std::string user_source_site() {
  if (!PyGILState_Check()) return {};
  PyObject *type, *value, *traceback;  // an allocation may happen while an exception is being handled
  PyErr_Fetch(&type, &value, &traceback);
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  std::string site;
  while (frame && site.empty()) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    std::string file = code_filename(code);
    Py_DECREF(code);
    if (!file.empty() && file.compare(0, package_prefix.size(), package_prefix) != 0) {
      if (!cwd_prefix.empty() && file.compare(0, cwd_prefix.size(), cwd_prefix) == 0)
        file.erase(0, cwd_prefix.size());
      site = file + ":" + std::to_string(PyFrame_GetLineNumber(frame));
    }
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  PyErr_Restore(type, value, traceback);
  return site;
}

}  // namespace

void init_allocation_sites(nb::module_& m) {
  m.def(
      "_record_allocation_sites",
      [](bool on, const std::string& package_dir, const std::string& cwd) {
        package_prefix = package_dir + "/";
        cwd_prefix = cwd.empty() ? cwd : cwd + "/";
        allocation_sites::set_site_provider(&user_source_site);
        allocation_sites::set_recording(on);
      },
      nb::arg("on"), nb::arg("package_dir"), nb::arg("cwd"));
  m.def("_recording_allocation_sites", [] { return allocation_sites::recording(); });
  // The device's `count` largest live allocations as [(bytes, site or None)], largest first.
  m.def("_cuda_largest_allocations", [](int index, size_t count) {
    Device device(DeviceType::CUDA, static_cast<int16_t>(index));
    return allocations_object(
        allocation_sites::attach_sites(device, cuda_backend().largest_live_allocations(index, count)));
  });
}

}  // namespace tandem::py
