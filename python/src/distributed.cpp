// Bindings of tandem.distributed's core: process groups, their work objects and the DDP reducer
// (python/tandem/distributed and python/tandem/nn/parallel are the Python API over these).
#include <functional>

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "core/error.h"
#include "distributed/process_group.h"
#include "distributed/reducer.h"

namespace tandem::py {

namespace {

using distributed::ProcessGroup;
using distributed::ProcessGroupPtr;
using distributed::ReduceOp;
using distributed::Work;
using distributed::WorkPtr;
using std::chrono::milliseconds;

std::vector<Tensor> tensor_list(nb::handle list, const char* fn, const char* arg) {
  std::vector<Tensor> out;
  if (list.is_none()) return out;
  for (nb::handle h : list) out.push_back(expect_tensor(h, fn, arg));
  return out;
}

ReduceOp to_reduce_op(int op) {
  TANDEM_CHECK(op >= 0 && op <= static_cast<int>(ReduceOp::BXor), Value, "unknown ReduceOp ", op);
  return static_cast<ReduceOp>(op);
}

}  // namespace

void init_distributed(nb::module_& m) {
  m.def("_dist_mpi_available", &distributed::mpi_available);
  m.def("_dist_nccl_available", &distributed::nccl_available);
  m.def(
      "_dist_mpi_world", [](int64_t timeout_ms) { return distributed::mpi_world(milliseconds(timeout_ms)); },
      nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "_dist_mpi_open_port",
      [](int64_t timeout_ms) { return distributed::mpi_open_port(milliseconds(timeout_ms)); },
      nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "_dist_mpi_join",
      [](const std::string& port, int rank, int size, int64_t timeout_ms, nb::object connected) {
        // `connected` runs on the MPI thread while this one waits without the GIL; the MPI thread also drops
        // the last copy of the callback, so the reference is released under the GIL whichever thread does it.
        std::function<void()> notify;
        if (!connected.is_none()) {
          std::shared_ptr<PyObject> fn(connected.release().ptr(), [](PyObject* p) {
            nb::gil_scoped_acquire gil;
            Py_DECREF(p);
          });
          notify = [fn] {
            nb::gil_scoped_acquire gil;
            nb::handle(fn.get())();
          };
        }
        nb::gil_scoped_release released;
        return distributed::mpi_join(port, rank, size, milliseconds(timeout_ms), notify);
      },
      nb::arg("port"), nb::arg("rank"), nb::arg("size"), nb::arg("timeout_ms"), nb::arg("connected").none());
  m.def("_dist_mpi_started", &distributed::mpi_started);
  m.def(
      "_dist_nccl_world",
      [](const ProcessGroupPtr& bootstrap, int64_t timeout_ms) {
        return distributed::nccl_world(bootstrap, milliseconds(timeout_ms));
      },
      nb::call_guard<nb::gil_scoped_release>());
  m.def(
      "_dist_shutdown", [](int64_t grace_ms) { distributed::shutdown_mpi(milliseconds(grace_ms)); },
      nb::call_guard<nb::gil_scoped_release>());
  m.def("_dist_had_timeout", &distributed::had_timeout);

  nb::class_<Work>(m, "_Work")
      .def("is_completed", &Work::is_completed)
      .def(
          "_wait", [](Work& w, int64_t timeout_ms) { w.wait(milliseconds(timeout_ms)); },
          nb::call_guard<nb::gil_scoped_release>())
      .def_prop_ro("source_rank", [](const Work& w) { return w.source_rank; })
      .def_prop_ro("description", [](const Work& w) { return w.description; });

  nb::class_<ProcessGroup>(m, "_ProcessGroup")
      .def("rank", &ProcessGroup::rank)
      .def("size", &ProcessGroup::size)
      .def("backend_name", &ProcessGroup::backend_name)
      .def_prop_ro("timeout_ms",
                   [](const ProcessGroup& g) { return static_cast<int64_t>(g.timeout().count()); })
      .def("all_reduce",
           [](ProcessGroup& g, const Tensor& t, int op) { return g.all_reduce(t, to_reduce_op(op)); })
      .def("broadcast", &ProcessGroup::broadcast)
      .def("reduce", [](ProcessGroup& g, const Tensor& t, int root,
                        int op) { return g.reduce(t, root, to_reduce_op(op)); })
      .def("all_gather",
           [](ProcessGroup& g, nb::handle outputs, const Tensor& input) {
             return g.all_gather(tensor_list(outputs, "all_gather", "tensor_list"), input);
           })
      .def("all_gather_into_tensor", &ProcessGroup::all_gather_into_tensor)
      .def("reduce_scatter_tensor", [](ProcessGroup& g, const Tensor& out, const Tensor& in,
                                       int op) { return g.reduce_scatter_tensor(out, in, to_reduce_op(op)); })
      .def("gather",
           [](ProcessGroup& g, const Tensor& input, nb::handle outputs, int root) {
             return g.gather(input, tensor_list(outputs, "gather", "gather_list"), root);
           })
      .def("scatter",
           [](ProcessGroup& g, const Tensor& output, nb::handle inputs, int root) {
             return g.scatter(output, tensor_list(inputs, "scatter", "scatter_list"), root);
           })
      .def("all_to_all_single", &ProcessGroup::all_to_all_single)
      .def("send", &ProcessGroup::send)
      .def("recv", &ProcessGroup::recv)
      .def("barrier", &ProcessGroup::barrier)
      .def("new_group", &ProcessGroup::new_group, nb::call_guard<nb::gil_scoped_release>());

  nb::class_<distributed::Reducer>(m, "_Reducer")
      .def_static("create",
                  [](nb::handle params, std::vector<std::string> names, ProcessGroupPtr group,
                     int64_t cap_bytes, bool find_unused) {
                    return distributed::Reducer::create(
                        tensor_list(params, "DistributedDataParallel", "params"), std::move(names),
                        std::move(group), cap_bytes, find_unused);
                  })
      .def("prepare_for_backward",
           [](distributed::Reducer& r, nb::handle outputs) {
             r.prepare_for_backward(tensor_list(outputs, "DistributedDataParallel", "outputs"));
           })
      .def("set_require_sync", &distributed::Reducer::set_require_sync)
      .def("bucket_indices", &distributed::Reducer::bucket_indices)
      .def_prop_ro("reductions", &distributed::Reducer::reductions);
}

}  // namespace tandem::py
