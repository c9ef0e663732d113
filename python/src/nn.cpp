// Bindings of the nn area: Parameter construction and in-place data swaps (Module.to), convolution and
// pooling ops with their backward functions, and the fused optimizer steps.
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string_view>
#include <utility>

#include "autograd/node.h"
#include "bindings.h"
#include "core/error.h"
#include "ops/activation.h"
#include "ops/batch_norm.h"
#include "ops/group_norm.h"
#include "ops/norm.h"
#include "ops/optim.h"
#include "ops/pool.h"
#include "ops/rnn_cell.h"
#include "ops/view.h"
#include "tensor_objects.h"

namespace tandem::py {

namespace {

// An int or a pair of ints (PyTorch's _pair).
Pair to_pair(nb::handle h, const char* name) {
  DimVector v = to_shape(h, name);
  if (v.size() == 1) return {v[0], v[0]};
  TANDEM_CHECK(v.size() == 2, Value, name, " must be an int or a pair of ints, got ", v.size(), " values");
  return {v[0], v[1]};
}

// A pooling window argument (argument `position` of `op`): PyTorch's TypeError for what is not an int or a
// sequence of ints, its RuntimeError (worded per argument) for a sequence of another length.
Pair to_pool_pair(nb::handle h, const char* op, std::string_view name, int position) {
  auto is_int = [](nb::handle x) {
    return !PyBool_Check(x.ptr()) && (PyLong_Check(x.ptr()) || PyIndex_Check(x.ptr()));
  };
  const bool sequence = PyList_Check(h.ptr()) || PyTuple_Check(h.ptr());
  TANDEM_CHECK(sequence || is_int(h), Type, op, "(): argument '", name, "' (position ", position,
               ") must be tuple of ints, not ", nb::inst_name(h).c_str());
  if (sequence) {
    int pos = 0;
    for (nb::handle item : h) {
      ++pos;
      TANDEM_CHECK(is_int(item), Type, op, "(): argument '", name, "' failed to unpack the object at pos ",
                   pos, " with error \"type must be tuple of ints,but got ", nb::inst_name(item).c_str(),
                   "\"");
    }
  }
  DimVector v = to_shape(h, op);
  if (v.size() == 1) return {v[0], v[0]};
  const char* form = name == "stride"     ? "must either be omitted, a single int, or a tuple of two ints"
                     : name == "dilation" ? "must be either a single int, or a tuple of two ints"
                                          : "must either be a single int, or a tuple of two ints";
  TANDEM_CHECK(v.size() == 2, Runtime, op, ": ", name, " ", form);
  return {v[0], v[1]};
}

// A convolution's int or pair of ints, with PyTorch's RuntimeError for any other length.
Pair to_conv_pair(nb::handle h, const char* name) {
  DimVector v = to_shape(h, name);
  if (v.size() == 1) return {v[0], v[0]};
  TANDEM_CHECK(
      v.size() == 2, Runtime, "expected ", name,
      " to be a single integer value or a list of 2 values to match the convolution dimensions, but got ",
      name, "=", shape_to_string(v));
  return {v[0], v[1]};
}

bool is_tensor_class(nb::handle cls) {
  return PyType_Check(cls.ptr()) &&
         PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()),
                          reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr()));
}

// An instance of `cls` holding `t` itself (its autograd history included).
nb::object instance_of(nb::handle cls, const Tensor& t) {
  nb::object inst = nb::inst_alloc(cls);
  new (nb::inst_ptr<Tensor>(inst)) Tensor(t);
  nb::inst_mark_ready(inst);
  return inst;
}

// An instance of `cls` (tandem.Tensor or a Python subclass such as nn.Parameter) sharing `data`'s memory.
nb::object make_subclass(nb::handle cls, const Tensor& data, bool requires_grad) {
  TANDEM_CHECK(is_tensor_class(cls), Type, "_make_subclass(): cls must be a subclass of Tensor");
  nb::object inst = instance_of(cls, alias(data));
  if (requires_grad) {
    Tensor& t = as_tensor_ref(inst);
    TANDEM_CHECK(is_floating(t.dtype()) || is_complex(t.dtype()), Runtime,
                 "Only Tensors of floating point and complex dtype can require gradients");
    TANDEM_CHECK(
        !t.storage()->is_inference() || InferenceMode::is_enabled(), Runtime,
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.\nhint: "
        "clone it first (nn.Parameter(x.clone())): the clone is a normal tensor");
    t.impl()->ensure_autograd().requires_grad = true;
    note_leaf_object(t, inst);
  }
  return inst;
}

nb::object grad_or_none(const Tensor& t) { return t.defined() ? wrap(t) : nb::none(); }

}  // namespace

void init_nn(nb::module_& m) {
  m.def("_make_subclass", &make_subclass, nb::arg("cls"), nb::arg("data"), nb::arg("requires_grad") = false);
  // Tensor.as_subclass(cls): a `cls` instance over a differentiable view of self (same memory, still in the
  // graph).
  m.def(
      "_as_subclass",
      [](const Tensor& self, nb::handle cls) {
        TANDEM_CHECK(
            is_tensor_class(cls), Type,
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
            "Make sure your class inherits from Tensor.");
        return instance_of(cls, tracked_view(self, view(self, self.sizes())));
      },
      nb::arg("self"), nb::arg("cls"));
  m.def("_set_data", &autograd::set_data, nb::arg("self"), nb::arg("src"));
  // torch.utils.swap_tensors' last step: the two Python objects exchange the C++ tensors they hold (the
  // checks, __class__ and __dict__ are Python's, in tandem/utils/_swap.py).
  m.def(
      "_swap_tensor_impl",
      [](nb::handle a, nb::handle b) {
        TANDEM_CHECK(is_tensor(a) && is_tensor(b), Type, "swap_tensors(): expected two Tensors, got ",
                     nb::inst_name(a).c_str(), " and ", nb::inst_name(b).c_str());
        std::swap(*nb::inst_ptr<Tensor>(a), *nb::inst_ptr<Tensor>(b));
        note_leaf_object(as_tensor_ref(a), a);
        note_leaf_object(as_tensor_ref(b), b);
      },
      nb::arg("t1"), nb::arg("t2"));
  // How many holders share this tensor's implementation (the Python object is one; a graph node that saved it
  // or accumulates into it is another), as PyTorch's Tensor._use_count.
  auto tensor_type = nb::type<Tensor>();
  static_cast<nb::class_<Tensor>&>(tensor_type).def("_use_count", [](const Tensor& t) -> int64_t {
    return t.impl()->use_count();
  });
  // The activations with parameters (ops/activation.h), for torch.nn.functional: name, input, the
  // parameters in kernels/activation.h's order; in place when `inplace` (the input is returned then).
  m.def(
      "_activation",
      [](const std::string& name, nb::handle input, double a, double b, double c,
         bool inplace) -> nb::object {
        const Tensor& x = expect_tensor(input, name.c_str(), "input");
        if (!inplace) return wrap(activation(name, x, a, b, c));
        activation_(name, x, a, b, c);
        return nb::borrow(input);
      },
      nb::arg("name"), nb::arg("input"), nb::arg("a") = 0.0, nb::arg("b") = 0.0, nb::arg("c") = 0.0,
      nb::arg("inplace") = false);

  m.def(
      "conv2d",
      [](const Tensor& input, const Tensor& weight, std::optional<Tensor> bias, nb::handle stride,
         nb::handle padding, nb::handle dilation, int64_t groups) {
        return conv2d(input, weight, bias, to_conv_pair(stride, "stride"), to_conv_pair(padding, "padding"),
                      to_conv_pair(dilation, "dilation"), groups);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(), nb::arg("stride") = 1,
      nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("groups") = 1);
  m.def(
      "_conv_transpose2d",
      [](const Tensor& input, const Tensor& weight, std::optional<Tensor> bias, nb::handle stride,
         nb::handle padding, nb::handle output_padding, nb::handle dilation, int64_t groups) {
        return conv_transpose2d(input, weight, bias, to_pair(stride, "stride"), to_pair(padding, "padding"),
                                to_pair(output_padding, "output_padding"), to_pair(dilation, "dilation"),
                                groups);
      },
      nb::arg("input"), nb::arg("weight"), nb::arg("bias") = nb::none(), nb::arg("stride") = 1,
      nb::arg("padding") = 0, nb::arg("output_padding") = 0, nb::arg("dilation") = 1, nb::arg("groups") = 1);
  m.def(
      "_conv2d_backward",
      [](const Tensor& grad_out, const Tensor& input, const Tensor& weight, nb::handle stride,
         nb::handle padding, nb::handle dilation, bool need_input, bool need_weight, bool need_bias,
         int64_t groups) {
        Conv2dGrads g =
            conv2d_backward(grad_out, input, weight, to_pair(stride, "stride"), to_pair(padding, "padding"),
                            to_pair(dilation, "dilation"), groups, need_input, need_weight, need_bias);
        return nb::make_tuple(grad_or_none(g.input), grad_or_none(g.weight), grad_or_none(g.bias));
      },
      nb::arg("grad_out"), nb::arg("input"), nb::arg("weight"), nb::arg("stride"), nb::arg("padding"),
      nb::arg("dilation"), nb::arg("need_input") = true, nb::arg("need_weight") = true,
      nb::arg("need_bias") = true, nb::arg("groups") = 1);

  m.def(
      "_max_pool2d_with_indices",
      [](const Tensor& input, nb::handle kernel, nb::handle stride, nb::handle padding, nb::handle dilation,
         bool ceil_mode) {
        const char* op = "max_pool2d";
        Pair k = to_pool_pair(kernel, op, "kernel_size", 2);
        Pair s = stride.is_none() ? k : to_pool_pair(stride, op, "stride", 3);
        return max_pool2d_with_indices(input, k, s, to_pool_pair(padding, op, "padding", 4),
                                       to_pool_pair(dilation, op, "dilation", 5), ceil_mode);
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
      nb::arg("dilation") = 1, nb::arg("ceil_mode") = false);
  m.def(
      "_max_pool2d_backward",
      [](const Tensor& grad_out, const Tensor& input, const Tensor& indices, nb::handle kernel,
         nb::handle stride, nb::handle padding, nb::handle dilation, bool ceil_mode) {
        Pair k = to_pair(kernel, "kernel_size");
        Pair s = stride.is_none() ? k : to_pair(stride, "stride");
        return max_pool2d_backward(grad_out, input, indices, k, s, to_pair(padding, "padding"),
                                   to_pair(dilation, "dilation"), ceil_mode);
      },
      nb::arg("grad_out"), nb::arg("input"), nb::arg("indices"), nb::arg("kernel_size"),
      nb::arg("stride").none(), nb::arg("padding"), nb::arg("dilation"), nb::arg("ceil_mode"));
  m.def(
      "_avg_pool2d",
      [](const Tensor& input, nb::handle kernel, nb::handle stride, nb::handle padding, bool ceil_mode,
         bool count_include_pad) {
        const char* op = "avg_pool2d";
        Pair k = to_pool_pair(kernel, op, "kernel_size", 2);
        Pair s = stride.is_none() ? k : to_pool_pair(stride, op, "stride", 3);
        return avg_pool2d(input, k, s, to_pool_pair(padding, op, "padding", 4), ceil_mode, count_include_pad);
      },
      nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
      nb::arg("ceil_mode") = false, nb::arg("count_include_pad") = true);
  m.def(
      "_avg_pool2d_backward",
      [](const Tensor& grad_out, const Tensor& input, nb::handle kernel, nb::handle stride,
         nb::handle padding, bool ceil_mode, bool count_include_pad) {
        Pair k = to_pair(kernel, "kernel_size");
        Pair s = stride.is_none() ? k : to_pair(stride, "stride");
        return avg_pool2d_backward(grad_out, input, k, s, to_pair(padding, "padding"), ceil_mode,
                                   count_include_pad);
      },
      nb::arg("grad_out"), nb::arg("input"), nb::arg("kernel_size"), nb::arg("stride").none(),
      nb::arg("padding"), nb::arg("ceil_mode"), nb::arg("count_include_pad"));
  m.def(
      "_adaptive_avg_pool2d",
      [](const Tensor& input, nb::handle output_size) {
        return adaptive_avg_pool2d(input, to_pair(output_size, "output_size"));
      },
      nb::arg("input"), nb::arg("output_size"));
  m.def("_adaptive_avg_pool2d_backward", &adaptive_avg_pool2d_backward);

  m.def(
      "_sgd_step",
      [](const Tensor& param, const Tensor& grad, std::optional<Tensor> buf, double lr, double momentum,
         double dampening, double weight_decay, bool nesterov, bool maximize, bool first_step) {
        SgdConfig cfg{lr, momentum, dampening, weight_decay, nesterov, maximize, first_step};
        sgd_step(param, grad, buf ? *buf : Tensor(), cfg);
      },
      nb::arg("param"), nb::arg("grad"), nb::arg("momentum_buffer").none(), nb::arg("lr"),
      nb::arg("momentum"), nb::arg("dampening"), nb::arg("weight_decay"), nb::arg("nesterov"),
      nb::arg("maximize"), nb::arg("first_step"));
  m.def(
      "_adam_step",
      [](const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
         std::optional<Tensor> max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool amsgrad, bool maximize, bool decoupled) {
        AdamConfig cfg{lr, beta1, beta2, eps, weight_decay, step, amsgrad, maximize, decoupled};
        adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq ? *max_exp_avg_sq : Tensor(), cfg);
      },
      nb::arg("param"), nb::arg("grad"), nb::arg("exp_avg"), nb::arg("exp_avg_sq"),
      nb::arg("max_exp_avg_sq").none(), nb::arg("step"), nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"),
      nb::arg("eps"), nb::arg("weight_decay"), nb::arg("amsgrad"), nb::arg("maximize"), nb::arg("decoupled"));
  // RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam: one fused update per tensor (kernels/fused_optim.h
  // lists each one's states s0..s2; None where it has none). `step` is already incremented.
  m.def(
      "_optim_step",
      [](const std::string& kind, const Tensor& param, const Tensor& grad, std::optional<Tensor> s0,
         std::optional<Tensor> s1, std::optional<Tensor> s2, double step, double lr, double weight_decay,
         double eps, bool maximize, double alpha, double beta1, double beta2, double momentum,
         double lr_decay, double momentum_decay, double mu_product, bool centered,
         bool decoupled_weight_decay) {
        OptimStepConfig cfg;
        if (kind == "rmsprop")
          cfg.kind = OptimKind::Rmsprop;
        else if (kind == "adagrad")
          cfg.kind = OptimKind::Adagrad;
        else if (kind == "adadelta")
          cfg.kind = OptimKind::Adadelta;
        else if (kind == "adamax")
          cfg.kind = OptimKind::Adamax;
        else if (kind == "nadam")
          cfg.kind = OptimKind::Nadam;
        else if (kind == "radam")
          cfg.kind = OptimKind::Radam;
        else
          throw nb::value_error(("_optim_step: unknown optimizer '" + kind + "'").c_str());
        cfg.lr = lr, cfg.weight_decay = weight_decay, cfg.eps = eps, cfg.alpha = alpha, cfg.beta1 = beta1;
        cfg.beta2 = beta2, cfg.momentum = momentum, cfg.lr_decay = lr_decay,
        cfg.momentum_decay = momentum_decay;
        cfg.mu_product = mu_product, cfg.step = step, cfg.maximize = maximize, cfg.centered = centered;
        cfg.decoupled_weight_decay = decoupled_weight_decay;
        optim_step(param, grad, s0 ? *s0 : Tensor(), s1 ? *s1 : Tensor(), s2 ? *s2 : Tensor(), cfg);
      },
      nb::arg("kind"), nb::arg("param"), nb::arg("grad"), nb::arg("s0").none(),
      nb::arg("s1").none() = nb::none(), nb::arg("s2").none() = nb::none(), nb::kw_only(), nb::arg("step"),
      nb::arg("lr"), nb::arg("weight_decay"), nb::arg("eps"), nb::arg("maximize"), nb::arg("alpha") = 0.0,
      nb::arg("beta1") = 0.0, nb::arg("beta2") = 0.0, nb::arg("momentum") = 0.0, nb::arg("lr_decay") = 0.0,
      nb::arg("momentum_decay") = 0.0, nb::arg("mu_product") = 1.0, nb::arg("centered") = false,
      nb::arg("decoupled_weight_decay") = false);
  // The fused recurrent cells (ops/rnn_cell.h), one call per step of nn.LSTM/GRU and their cells.
  m.def(
      "_lstm_cell",
      [](const Tensor& gates, const Tensor& c_prev) {
        auto [h, c] = lstm_cell(gates, c_prev);
        return std::make_tuple(h, c);
      },
      nb::arg("gates"), nb::arg("c_prev"));
  // The cell's gradients (gates, c_prev) for the whole-layer LSTM backward (nn/_rnn_engine.py); out receives
  // the gates' gradient (that step's rows of the layer's buffer).
  m.def(
      "_lstm_cell_backward",
      [](const Tensor& gates, const Tensor& c_prev, const Tensor& grad_h, std::optional<Tensor> grad_c,
         std::optional<Tensor> out) {
        auto [grad_gates, grad_c_prev] =
            lstm_cell_backward(gates, c_prev, grad_h, grad_c ? *grad_c : Tensor(), out ? *out : Tensor());
        return std::make_tuple(grad_gates, grad_c_prev);
      },
      nb::arg("gates"), nb::arg("c_prev"), nb::arg("grad_h"), nb::arg("grad_c").none(), nb::kw_only(),
      nb::arg("out").none() = nb::none());
  m.def("_gru_cell", &gru_cell, nb::arg("x_proj"), nb::arg("h_proj"), nb::arg("h"));
  // Layer normalisation (ops/norm.h): F.layer_norm takes the output only; tandem.native_layer_norm all three.
  auto layer_norm_call = [](const Tensor& input, const std::vector<int64_t>& normalized_shape,
                            std::optional<Tensor> weight, std::optional<Tensor> bias, double eps) {
    return native_layer_norm(input, normalized_shape, weight ? *weight : Tensor(), bias ? *bias : Tensor(),
                             eps);
  };
  m.def(
      "_layer_norm",
      [=](const Tensor& input, const std::vector<int64_t>& normalized_shape, std::optional<Tensor> weight,
          std::optional<Tensor> bias,
          double eps) { return layer_norm_call(input, normalized_shape, weight, bias, eps)[0]; },
      nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none(), nb::arg("bias").none(),
      nb::arg("eps"));
  m.def(
      "_native_layer_norm",
      [=](const Tensor& input, const std::vector<int64_t>& normalized_shape, std::optional<Tensor> weight,
          std::optional<Tensor> bias, double eps) {
        auto [out, mean, rstd] = layer_norm_call(input, normalized_shape, weight, bias, eps);
        return std::make_tuple(out, mean, rstd);
      },
      nb::arg("input"), nb::arg("normalized_shape"), nb::arg("weight").none(), nb::arg("bias").none(),
      nb::arg("eps"));

  // Batch normalisation (ops/batch_norm.h): F.batch_norm takes the output; tandem.native_batch_norm all
  // three.
  auto batch_norm_call = [](const Tensor& input, std::optional<Tensor> weight, std::optional<Tensor> bias,
                            std::optional<Tensor> running_mean, std::optional<Tensor> running_var,
                            bool training, double momentum, double eps) {
    auto or_undefined = [](const std::optional<Tensor>& t) { return t ? *t : Tensor(); };
    return native_batch_norm(input, or_undefined(weight), or_undefined(bias), or_undefined(running_mean),
                             or_undefined(running_var), training, momentum, eps);
  };
  m.def(
      "_batch_norm",
      [=](const Tensor& input, std::optional<Tensor> weight, std::optional<Tensor> bias,
          std::optional<Tensor> running_mean, std::optional<Tensor> running_var, bool training,
          double momentum, double eps) {
        return batch_norm_call(input, weight, bias, running_mean, running_var, training, momentum, eps)[0];
      },
      nb::arg("input"), nb::arg("weight").none(), nb::arg("bias").none(), nb::arg("running_mean").none(),
      nb::arg("running_var").none(), nb::arg("training"), nb::arg("momentum"), nb::arg("eps"));
  m.def(
      "_native_batch_norm",
      [=](const Tensor& input, std::optional<Tensor> weight, std::optional<Tensor> bias,
          std::optional<Tensor> running_mean, std::optional<Tensor> running_var, bool training,
          double momentum, double eps) {
        auto [out, mean, invstd] =
            batch_norm_call(input, weight, bias, running_mean, running_var, training, momentum, eps);
        return std::make_tuple(out, mean, invstd);
      },
      nb::arg("input"), nb::arg("weight").none(), nb::arg("bias").none(), nb::arg("running_mean").none(),
      nb::arg("running_var").none(), nb::arg("training"), nb::arg("momentum"), nb::arg("eps"));
  m.def(
      "_native_batch_norm_backward",
      [](const Tensor& grad_out, const Tensor& input, std::optional<Tensor> weight,
         std::optional<Tensor> running_mean, std::optional<Tensor> running_var,
         std::optional<Tensor> save_mean, std::optional<Tensor> save_invstd, bool train, double eps,
         std::array<bool, 3> output_mask) {
        auto or_undefined = [](const std::optional<Tensor>& t) { return t ? *t : Tensor(); };
        auto [gi, gw, gb] = native_batch_norm_backward(
            grad_out, input, or_undefined(weight), or_undefined(running_mean), or_undefined(running_var),
            or_undefined(save_mean), or_undefined(save_invstd), train, eps, output_mask);
        auto or_none = [](const Tensor& t) { return t.defined() ? nb::cast(t) : nb::none(); };
        return std::make_tuple(or_none(gi), or_none(gw), or_none(gb));
      },
      nb::arg("grad_out"), nb::arg("input"), nb::arg("weight").none(), nb::arg("running_mean").none(),
      nb::arg("running_var").none(), nb::arg("save_mean").none(), nb::arg("save_invstd").none(),
      nb::arg("train"), nb::arg("eps"), nb::arg("output_mask"));

  // Group normalisation (ops/group_norm.h) over batch normalisation's kernels.
  m.def(
      "_group_norm",
      [](const Tensor& input, int64_t num_groups, std::optional<Tensor> weight, std::optional<Tensor> bias,
         double eps) {
        TANDEM_CHECK(input.dim() >= 2, Runtime,
                     "Expected at least 2 dimensions for input tensor but received ", input.dim());
        const int64_t n = input.sizes()[0], channels = input.sizes()[1];
        const int64_t hxw = n * channels == 0 ? 0 : input.numel() / (n * channels);
        return native_group_norm(input, weight ? *weight : Tensor(), bias ? *bias : Tensor(), n, channels,
                                 hxw, num_groups, eps)[0];
      },
      nb::arg("input"), nb::arg("num_groups"), nb::arg("weight").none(), nb::arg("bias").none(),
      nb::arg("eps"));
}

}  // namespace tandem::py
