// Bindings of the random area: random draws (module functions and in-place Tensor methods). The Generator
// class and the range factories live in generator.cpp and factories.cpp, registered from here.
#include <nanobind/stl/string.h>

#include <string>
#include <vector>

#include "bindings.h"
#include "core/error.h"
#include "factory_args.h"
#include "layouts.h"
#include "ops/copy.h"
#include "ops/random.h"
#include "ops/random_gamma.h"
#include "parser_errors.h"

namespace tandem::py {

void init_generator(nb::module_& m);
void init_factories(nb::module_& m);

namespace {

Generator* to_generator(nb::handle h, const char* fn) {
  if (h.is_none()) return nullptr;
  if (!nb::isinstance<Generator>(h)) {
    // A function with several overloads in PyTorch (registered below): its listing of them, worded from the
    // call.
    if (const std::vector<ParserSignature>* overloads = registered_parser_signatures(fn))
      refuse_as_invalid_combination(fn, *overloads, "generator", h, "torch.Generator");
    TANDEM_THROW(Type, fn, "(): argument 'generator' must be tandem.Generator, not ", parser_type_name(h),
                 "\nhint: pass a tandem.Generator() or leave generator=None");
  }
  return nb::inst_ptr<Generator>(h);
}

// PyTorch's overloads of the draws whose generator= its parser checks by listing them (the factories have one
// overload with a generator and one without).
void register_draw_signatures() {
  constexpr const char* kFactoryTail =
      "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
      "bool "
      "pin_memory = False, bool requires_grad = False";
  static const std::string with_generator = std::string("*, torch.Generator generator, ") + kFactoryTail;
  static const std::string without_generator = std::string("*, ") + kFactoryTail;
  for (const char* fn : {"rand", "randn"})
    register_parser_signatures(fn, {{{"tuple of ints size"}, with_generator.c_str()},
                                    {{"tuple of ints size"}, without_generator.c_str()}});
  register_parser_signatures("randint",
                             {{{"int high", "tuple of ints size"}, with_generator.c_str()},
                              {{"int high", "tuple of ints size"}, without_generator.c_str()},
                              {{"int low", "int high", "tuple of ints size"}, with_generator.c_str()},
                              {{"int low", "int high", "tuple of ints size"}, without_generator.c_str()}});
  register_parser_signatures("randperm",
                             {{{"int n"}, with_generator.c_str()}, {{"int n"}, without_generator.c_str()}});
  register_parser_signatures("bernoulli",
                             {{{"Tensor input"}, "*, torch.Generator generator = None, Tensor out = None"},
                              {{"Tensor input", "float p"}, "*, torch.Generator generator = None"}});
  register_parser_signatures("bernoulli_", {{{"Tensor p"}, "*, torch.Generator generator = None"},
                                            {{"float p = 0.5"}, "*, torch.Generator generator = None"}});
  static const std::string normal_factory =
      std::string("*, torch.Generator generator = None, ") + kFactoryTail;
  register_parser_signatures(
      "normal", {{{"Tensor mean", "Tensor std"}, "*, torch.Generator generator = None, Tensor out = None"},
                 {{"Tensor mean", "float std = 1"}, "*, torch.Generator generator = None, Tensor out = None"},
                 {{"float mean", "Tensor std"}, "*, torch.Generator generator = None, Tensor out = None"},
                 {{"float mean", "float std", "tuple of ints size"}, normal_factory.c_str()}});
}

double float_arg(nb::handle h, const char* fn, const char* arg) {
  Scalar s;
  if (is_tensor(h)) {
    s = item(as_tensor_ref(h));
  } else if (!to_scalar(h, s)) {
    // A draw with several overloads in PyTorch (registered): its listing; otherwise the argument's own error,
    // with PyTorch's "(position n)" added by the wrapper for a positional one.
    if (const std::vector<ParserSignature>* overloads = registered_parser_signatures(fn))
      refuse_as_invalid_combination(fn, *overloads, arg, h, "float");
    defer_argument_position(fn, arg);
    TANDEM_THROW(Type, fn, "(): argument '", arg, "' must be float, not ", parser_type_name(h));
  }
  return s.to_double();
}

// Fills named parameters from positional arguments and keywords, PyTorch-overload style: with `n` values in
// all, the positionals take the last n names of `order` that no keyword claimed (so randint(10, (3,)) is
// (high, size) while randint(0, 10, (3,)) is (low, high, size)).
std::vector<nb::handle> bind_positional(nb::args args, std::vector<nb::handle> kw, const char* fn,
                                        const std::vector<const char*>& order, size_t required) {
  size_t given = args.size();
  for (nb::handle h : kw) given += !h.is_none();
  TANDEM_CHECK(given >= required && given <= order.size(), Type, fn, "() takes from ", required, " to ",
               order.size(), " arguments but ", given, " were given");
  size_t skip = order.size() - given;  // leading parameters left at their defaults
  size_t next = 0;
  for (size_t i = skip; i < order.size(); ++i) {
    if (!kw[i].is_none()) continue;
    TANDEM_CHECK(next < args.size(), Type, fn, "() missing required argument '", order[i], "'");
    kw[i] = args[next++];
  }
  TANDEM_CHECK(next == args.size(), Type, fn, "() got conflicting positional and keyword arguments");
  return kw;
}

DimVector size_from(nb::args args, nb::handle size, const char* fn) {
  return shape_from_args(args, size, fn, "size");
}

Device like_device(const Tensor& x, nb::handle device) {
  return device.is_none() ? x.device() : to_device(device);
}

// rand's out= check; PyTorch's randn.out is a composition that resizes out first, so an out that requires
// grad is resize_'s error there, in any grad mode.
void check_draw_out(std::string_view name, nb::handle out) {
  if (name != "randn") return check_factory_out("aten::rand", out);
  TANDEM_CHECK(
      !is_tensor(out) || !as_tensor_ref(out).requires_grad(), Runtime,
      "cannot resize variables that require grad\nhint: draw into a tensor that does not require grad, "
      "or leave out= away");
}

}  // namespace

void init_random(nb::module_& m) {
  register_draw_signatures();
  init_generator(m);
  init_factories(m);

#define TANDEM_FLOAT_DRAW(name, draw)                                                                     \
  m.def(                                                                                                  \
      #name,                                                                                              \
      [](nb::args args, nb::handle size, nb::handle generator, nb::handle dtype_arg, nb::handle device,   \
         bool requires_grad, nb::handle out, nb::handle layout, bool pin_memory) {                        \
        check_dense_layout(layout, #name);                                                                \
        check_draw_out(#name, out);                                                                       \
        nb::object dtype = dtype_or_out(dtype_arg, out);                                                  \
        DType d = dtype.is_none() ? default_float_dtype() : to_dtype(dtype);                              \
        Tensor t = draw(size_from(args, size, #name), d, device_or_default(device_or_out(device, out)),   \
                        to_generator(generator, #name));                                                  \
        return into_out(#name, with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});     \
      },                                                                                                  \
      nb::arg("args"), nb::arg("size") = nb::none(), nb::arg("generator") = nb::none(),                   \
      nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(), nb::arg("requires_grad") = false,    \
      nb::arg("out") = nb::none(), nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);        \
  m.def(                                                                                                  \
      #name "_like",                                                                                      \
      [](nb::handle input, nb::handle generator, nb::handle dtype, nb::handle device, bool requires_grad, \
         nb::handle layout, nb::handle memory_format, bool pin_memory) -> nb::object {                    \
        const Tensor& x = like_input(input, #name "_like");                                               \
        if (!like_in_cpp(x, memory_format, layout)) {                                                     \
          nb::dict kwargs = like_kwargs(dtype, device, requires_grad, pin_memory);                        \
          kwargs["generator"] = generator;                                                                \
          return like_via_layouts(#name "_like", x, nb::tuple(), kwargs, memory_format, layout);          \
        }                                                                                                 \
        DType d = dtype.is_none() ? x.dtype() : to_dtype(dtype);                                          \
        Tensor t = draw(x.sizes(), d, like_device(x, device), to_generator(generator, #name "_like"));    \
        return wrap(with_requires_grad(pinned_if(t, pin_memory), requires_grad));                         \
      },                                                                                                  \
      nb::arg("input"), nb::kw_only(), nb::arg("generator") = nb::none(), nb::arg("dtype") = nb::none(),  \
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(),   \
      nb::arg("memory_format") = nb::none(), nb::arg("pin_memory") = false);
  TANDEM_FLOAT_DRAW(rand, rand)
  TANDEM_FLOAT_DRAW(randn, randn)
#undef TANDEM_FLOAT_DRAW

  m.def(
      "_cpu_double_draws_",
      [](const Tensor& x, const std::string& kind, double a, double b, nb::handle generator) {
        static const std::pair<const char*, cpu_stream::DoubleDraw> kinds[] = {
            {"exponential_", cpu_stream::DoubleDraw::Exponential},
            {"cauchy_", cpu_stream::DoubleDraw::Cauchy},
            {"log_normal_", cpu_stream::DoubleDraw::LogNormal},
            {"geometric_", cpu_stream::DoubleDraw::Geometric}};
        for (const auto& [name, draw] : kinds)
          if (kind == name) return cpu_double_draws_(x, draw, a, b, name, to_generator(generator, name));
        TANDEM_THROW(Value, "_cpu_double_draws_: unknown draw '", kind,
                     "'\nhint: exponential_, cauchy_, log_normal_ or geometric_");
      },
      nb::arg("x"), nb::arg("kind"), nb::arg("a"), nb::arg("b"), nb::arg("generator").none(),
      "x filled in place from the CPU stream with PyTorch's float64 draw `kind` (ops/random.h).");

  m.def(
      "_cpu_random_range_",
      [](const Tensor& x, int64_t low, uint64_t range, bool one_word, nb::handle generator) {
        return cpu_random_range_(x, low, range, one_word, to_generator(generator, "random_"));
      },
      nb::arg("x"), nb::arg("low"), nb::arg("range"), nb::arg("one_word"), nb::arg("generator").none(),
      "x filled in place from the CPU stream with low + draw % range (0: all of int64) (ops/random.h).");

  m.def(
      "_floating_random_bounds",
      [](nb::handle dtype, int64_t low, int64_t high, bool to_given) {
        floating_random_bounds(to_dtype(dtype), low, high, to_given);
        return nb::make_tuple(low, high);
      },
      nb::arg("dtype"), nb::arg("low"), nb::arg("high"), nb::arg("to_given"),
      "random_'s bounds for a floating dtype as PyTorch moves and checks them (ops/random.h).");

  m.def(
      "randint",
      [](nb::args args, nb::handle low, nb::handle high, nb::handle size, nb::handle generator,
         nb::handle dtype_arg, nb::handle device, bool requires_grad, nb::handle out, nb::handle layout,
         bool pin_memory) {
        check_dense_layout(layout, "randint");
        check_factory_out("aten::randint", out);
        auto p = bind_positional(args, {low, high, size}, "randint", {"low", "high", "size"}, 2);
        int64_t lo = p[0].is_none() ? 0 : symint_arg(p[0], "randint", "low");
        int64_t hi = symint_arg(p[1], "randint", "high");
        // (zeros() takes a one-element tensor as its size; PyTorch's randint does not)
        TANDEM_CHECK(!is_tensor(p[2]), Type, "randint(): argument 'size' must be tuple of ints, not Tensor",
                     "\nhint: pass the size as a tuple, e.g. (3,)");
        // PyTorch's parser takes no bare int as randint's size (zeros(3) has its own int-list overload).
        if (PyLong_Check(p[2].ptr())) {
          std::string got;
          const auto add = [&](const std::string& item) { got += (got.empty() ? "" : ", ") + item; };
          for (nb::handle a : args) add(Py_TYPE(a.ptr())->tp_name);
          const std::pair<const char*, nb::handle> keywords[] = {
              {"low", low},         {"high", high},     {"size", size}, {"generator", generator},
              {"dtype", dtype_arg}, {"device", device}, {"out", out},   {"layout", layout}};
          for (const auto& [name, value] : keywords)
            if (!value.is_none()) add(std::string(name) + "=" + Py_TYPE(value.ptr())->tp_name);
          if (requires_grad) add("requires_grad=bool");
          if (pin_memory) add("pin_memory=bool");
          TANDEM_THROW(Type, "randint() received an invalid combination of arguments - got (", got,
                       "), but expected one of:\nhint: pass the size as a tuple, e.g. randint(0, 5, (3,))");
        }
        nb::object dtype = dtype_or_out(dtype_arg, out);
        DType d = dtype.is_none() ? DType::Int64 : to_dtype(dtype);
        check_requires_grad(requires_grad, d);
        Tensor t = randint(lo, hi, to_shape(p[2], "randint"), d,
                           device_or_default(device_or_out(device, out)), to_generator(generator, "randint"));
        return into_out("randint", with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});
      },
      nb::arg("args"), nb::arg("low") = nb::none(), nb::arg("high") = nb::none(),
      nb::arg("size") = nb::none(), nb::arg("generator") = nb::none(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("out") = nb::none(),
      nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);
  m.def(
      "randint_like",
      [](nb::handle input, nb::args args, nb::handle low, nb::handle high, nb::handle generator,
         nb::handle dtype, nb::handle device, bool requires_grad, nb::handle layout, nb::handle memory_format,
         bool pin_memory) -> nb::object {
        const Tensor& x = like_input(input, "randint_like");
        if (!like_in_cpp(x, memory_format, layout)) {
          nb::dict kwargs = like_kwargs(dtype, device, requires_grad, pin_memory);
          kwargs["generator"] = generator;
          if (!low.is_none()) kwargs["low"] = low;
          if (!high.is_none()) kwargs["high"] = high;
          return like_via_layouts("randint_like", x, nb::tuple(args), kwargs, memory_format, layout);
        }
        auto p = bind_positional(args, {low, high}, "randint_like", {"low", "high"}, 1);
        int64_t lo = p[0].is_none() ? 0 : int_arg(p[0], "randint_like", "low");
        int64_t hi = int_arg(p[1], "randint_like", "high");
        DType d = dtype.is_none() ? x.dtype() : to_dtype(dtype);
        check_requires_grad(requires_grad, d);
        Tensor t =
            randint(lo, hi, x.sizes(), d, like_device(x, device), to_generator(generator, "randint_like"));
        return wrap(with_requires_grad(pinned_if(t, pin_memory), requires_grad));
      },
      nb::arg("input"), nb::arg("args"), nb::arg("low") = nb::none(), nb::arg("high") = nb::none(),
      nb::arg("generator") = nb::none(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false, nb::arg("layout") = nb::none(), nb::arg("memory_format") = nb::none(),
      nb::arg("pin_memory") = false);
  m.def(
      "randperm",
      [](int64_t n, nb::handle generator, nb::handle dtype_arg, nb::handle device, bool requires_grad,
         nb::handle out, nb::handle layout, bool pin_memory) {
        // A generator of another type: PyTorch's listing of its two overloads (to_generator), first.
        Generator* gen = to_generator(generator, "randperm");
        check_dense_layout(layout, "randperm");
        check_factory_out("aten::randperm", out);
        nb::object dtype = dtype_or_out(dtype_arg, out);
        DType d = dtype.is_none() ? DType::Int64 : to_dtype(dtype);
        check_requires_grad(requires_grad, d);
        Tensor t = randperm(n, d, device_or_default(device_or_out(device, out)), gen);
        return into_out("randperm", with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});
      },
      nb::arg("n"), nb::kw_only(), nb::arg("generator") = nb::none(), nb::arg("dtype") = nb::none(),
      nb::arg("device") = nb::none(), nb::arg("requires_grad") = false, nb::arg("out") = nb::none(),
      nb::arg("layout") = nb::none(), nb::arg("pin_memory") = false);

  // bernoulli(input) draws with probabilities input; bernoulli(input, p) draws like input with scalar p.
  auto bernoulli_fn = [](const Tensor& x, nb::handle p, nb::handle generator) {
    Generator* gen = to_generator(generator, "bernoulli");
    if (p.is_none()) return bernoulli(x, gen);
    Tensor out = empty(x.sizes(), x.dtype(), x.device());
    return bernoulli_(out, float_arg(p, "bernoulli", "p"), gen);
  };
  m.def(
      "bernoulli",
      [bernoulli_fn](const Tensor& x, nb::handle p, nb::handle generator, nb::handle out) {
        return into_out("bernoulli", bernoulli_fn(x, p, generator), out, {&x});
      },
      nb::arg("input"), nb::arg("p") = nb::none(), nb::kw_only(), nb::arg("generator") = nb::none(),
      nb::arg("out") = nb::none());

  m.def(
      "normal",
      [](nb::handle mean, nb::handle std, nb::handle size, nb::handle generator, nb::handle dtype_arg,
         nb::handle device_arg, bool requires_grad, nb::handle out, nb::handle layout, bool pin_memory) {
        nb::object dtype = dtype_or_out(dtype_arg, out), device = device_or_out(device_arg, out);
        Generator* gen = to_generator(generator, "normal");
        // PyTorch's overloads take size=, layout= and pin_memory= only with float mean and std (its parser
        // refuses the rest).
        auto kind = [](nb::handle h) { return is_tensor(h) ? "Tensor" : Py_TYPE(h.ptr())->tp_name; };
        const char* factory_arg = !size.is_none() ? "size" : !layout.is_none() ? "layout" : "pin_memory";
        const nb::handle factory_value = !size.is_none() ? size : layout;
        TANDEM_CHECK(
            (size.is_none() && layout.is_none() && !pin_memory) || !(is_tensor(mean) || is_tensor(std)), Type,
            "normal() received an invalid combination of arguments - got (", kind(mean), ", ", kind(std),
            ", ", factory_arg, "=", factory_value.is_none() ? "bool" : kind(factory_value),
            "), but expected one of:\nhint: with a tensor mean or std the shape is theirs; drop ",
            factory_arg, "=");
        check_dense_layout(layout, "normal");
        if (!out.is_none()) {  // the draw happens in out's dtype
          const DType d = expect_tensor(out, "normal", "out").dtype();
          TANDEM_CHECK(is_floating(d) || is_complex(d), NotImplemented,
                       "\"normal_kernel_cpu\" not implemented for '", dtype_title(d),
                       "'\nhint: normal draws into a floating-point out tensor");
        }
        Tensor t;
        if (is_tensor(mean) && is_tensor(std))
          t = normal(as_tensor_ref(mean), as_tensor_ref(std), gen);
        else if (is_tensor(mean))
          t = normal(as_tensor_ref(mean), float_arg(std, "normal", "std"), gen);
        else if (is_tensor(std))
          t = normal(float_arg(mean, "normal", "mean"), as_tensor_ref(std), gen);
        else {
          TANDEM_CHECK(!size.is_none(), Type, "normal() missing required argument 'size'",
                       "\nhint: with a float mean and std, pass the shape: normal(0.0, 1.0, size=(2, 3))");
          check_factory_out("aten::normal", out);
          DType d = dtype.is_none() ? default_float_dtype() : to_dtype(dtype);
          t = normal_(empty(to_shape(size, "normal"), d, device_or_default(device)),
                      float_arg(mean, "normal", "mean"), float_arg(std, "normal", "std"), gen);
        }
        return into_out("normal", with_requires_grad(pinned_if(t, pin_memory), requires_grad), out, {});
      },
      nb::arg("mean"), nb::arg("std") = 1.0, nb::arg("size") = nb::none(), nb::kw_only(),
      nb::arg("generator") = nb::none(), nb::arg("dtype") = nb::none(), nb::arg("device") = nb::none(),
      nb::arg("requires_grad") = false, nb::arg("out") = nb::none(), nb::arg("layout") = nb::none(),
      nb::arg("pin_memory") = false);

  // num_samples as PyTorch's parser reads it (position 1 in the method, 2 in the function).
  auto multinomial_fn = [](const Tensor& x, nb::handle num_samples, bool replacement, nb::handle generator,
                           int position) {
    return multinomial(x, int_arg(num_samples, "multinomial", "num_samples", position), replacement,
                       to_generator(generator, "multinomial"));
  };
  m.def(
      "multinomial",
      [multinomial_fn](const Tensor& x, nb::handle num_samples, bool replacement, nb::handle generator,
                       nb::handle out) {
        if (!out.is_none()) {
          const DType d = expect_tensor(out, "multinomial", "out").dtype();
          TANDEM_CHECK(d == DType::Int64, Runtime,
                       "multinomial expects Long tensor out, got: ", dtype_title(d));
        }
        return into_out("multinomial", multinomial_fn(x, num_samples, replacement, generator, 2), out, {&x});
      },
      nb::arg("input"), nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
      nb::arg("generator") = nb::none(), nb::arg("out") = nb::none());

  // The draws with a rejection sampler; PyTorch has them as functions only (no Tensor methods).
  m.def(
      "_standard_gamma",
      [](const Tensor& x, nb::handle generator) {
        return standard_gamma(x, to_generator(generator, "_standard_gamma"));
      },
      nb::arg("input"), nb::arg("generator") = nb::none());
  m.def("_standard_gamma_grad", &standard_gamma_grad, nb::arg("input"), nb::arg("output"));
  m.def(
      "poisson",
      [](const Tensor& x, nb::handle generator) { return poisson(x, to_generator(generator, "poisson")); },
      nb::arg("input"), nb::arg("generator") = nb::none());
  m.def(
      "binomial",
      [](const Tensor& count, const Tensor& prob, nb::handle generator) {
        return binomial(count, prob, to_generator(generator, "binomial"));
      },
      nb::arg("count"), nb::arg("prob"), nb::arg("generator") = nb::none());
  m.def(
      "_sample_dirichlet",
      [](const Tensor& x, nb::handle generator) {
        return sample_dirichlet(x, to_generator(generator, "_sample_dirichlet"));
      },
      nb::arg("input"), nb::arg("generator") = nb::none());

  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def("bernoulli", bernoulli_fn, nb::arg("p") = nb::none(), nb::kw_only(),
             nb::arg("generator") = nb::none());
  tensor.def(
      "multinomial",
      [multinomial_fn](const Tensor& x, nb::handle num_samples, bool replacement, nb::handle generator) {
        return multinomial_fn(x, num_samples, replacement, generator, 1);
      },
      nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
      nb::arg("generator") = nb::none());
  tensor.def("uniform_",
             returning_self("uniform_",
                            [](const Tensor& x, nb::handle from, nb::handle to, nb::handle generator) {
                              return uniform_(x, float_arg(from, "uniform_", "from"),
                                              float_arg(to, "uniform_", "to"),
                                              to_generator(generator, "uniform_"));
                            }),
             nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::kw_only(), nb::arg("generator") = nb::none());
  tensor.def("normal_",
             returning_self("normal_",
                            [](const Tensor& x, nb::handle mean, nb::handle std, nb::handle generator) {
                              return normal_(x, float_arg(mean, "normal_", "mean"),
                                             float_arg(std, "normal_", "std"),
                                             to_generator(generator, "normal_"));
                            }),
             nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::kw_only(), nb::arg("generator") = nb::none());
  tensor.def("bernoulli_",
             returning_self("bernoulli_",
                            [](const Tensor& x, nb::handle p, nb::handle generator) {
                              Generator* gen = to_generator(generator, "bernoulli_");
                              if (is_tensor(p)) return bernoulli_(x, as_tensor_ref(p), gen);
                              return bernoulli_(x, float_arg(p, "bernoulli_", "p"), gen);
                            }),
             nb::arg("p") = 0.5, nb::kw_only(), nb::arg("generator") = nb::none());
}

}  // namespace tandem::py
