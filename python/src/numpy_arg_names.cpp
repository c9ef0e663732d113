// NumPy's parameter names, as PyTorch's argument parser takes them: `axis` wherever a native function's parameter
// is `dim`, `keepdims` for `keepdim`, and `dim` where the parameter is `axis` (concatenate). Every bound function
// and Tensor method with such a parameter gets one more overload per missing name, which requires that name as a
// keyword: nanobind tries it only after the real overloads did not match, and it matches only a call that uses
// the name, so ordinary calls cost nothing. It renames the keyword and calls again. (nanobind chains a new
// function into the overloads of the one already at scope.name.)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bindings.h"

namespace tandem::py {

namespace {

struct OtherName {
  const char* parameter;
  const char* alias;
  const char* conflict;  // PyTorch's words for a call that gives both names
};
constexpr OtherName kOtherNames[] = {{"dim", "axis", "got an unexpected keyword argument"},
                                     {"keepdim", "keepdims", "got an unexpected keyword argument"},
                                     {"axis", "dim", "got multiple values for argument"}};

// The parameter names of one overload's signature, "def f(self, x: T, dim: T | None = \0, *, out: T = \1) -> T",
// and how many of them can be passed by position (those before `*`, `*args` or the end).
struct Parameters {
  std::vector<std::string> names;
  size_t positional = 0;
};

Parameters parse_signature(std::string_view sig) {
  Parameters p;
  size_t i = sig.find('(');
  if (i == std::string_view::npos) return p;
  int depth = 0;
  bool keyword_only = false;
  size_t start = i + 1;
  auto take = [&](std::string_view item) {
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    const std::string_view name = item.substr(0, item.find_first_of(":= "));
    if (name.empty() || name == "/") return;
    if (name.front() == '*') {  // `*`, `*args` or `**kwargs`: what follows is keyword-only
      keyword_only = true;
      return;
    }
    p.names.emplace_back(name);
    if (!keyword_only) p.positional = p.names.size();
  };
  for (++i; i < sig.size(); ++i) {
    const char c = sig[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) {
        take(sig.substr(start, i - start));
        break;
      }
      --depth;
    } else if (c == ',' && depth == 0) {
      take(sig.substr(start, i - start));
      start = i + 1;
    }
  }
  return p;
}

// Where `parameter` can be passed by position (its smallest index over the overloads, not counting self), if
// anywhere; whether any overload has it at all.
struct Lookup {
  bool present = false;
  std::optional<size_t> position;
};

Lookup find_parameter(const std::vector<Parameters>& overloads, std::string_view parameter, bool method) {
  Lookup found;
  for (const Parameters& p : overloads) {
    for (size_t k = 0; k < p.names.size(); ++k) {
      if (p.names[k] != parameter) continue;
      found.present = true;
      if (k < p.positional && !(method && k == 0)) {
        const size_t index = method ? k - 1 : k;
        if (!found.position || index < *found.position) found.position = index;
      }
    }
  }
  return found;
}

// The call again under the parameter's own name. A value already given for it, by keyword or by position, is
// PyTorch's TypeError.
nb::object call_renamed(nb::handle callee, const char* name, const OtherName& names,
                        std::optional<size_t> position, nb::args args, nb::handle value, nb::kwargs kwargs) {
  const bool given = kwargs.contains(names.parameter) || (position && args.size() > *position);
  if (given) throw nb::type_error((std::string(name) + "() " + names.conflict + " '" + names.alias + "'").c_str());
  kwargs[names.parameter] = value;
  for (const OtherName& other : kOtherNames) {  // both of NumPy's names at once (axis= and keepdims=)
    // (not the reverse pair of this one: axis -> dim must not turn the dim just set back into axis)
    if (other.parameter == names.parameter || other.parameter == names.alias || !kwargs.contains(other.alias) ||
        kwargs.contains(other.parameter))
      continue;
    kwargs[other.parameter] = kwargs[other.alias];
    nb::del(kwargs[other.alias]);
  }
  return callee(*args, **kwargs);
}

void add_other_names(nb::handle scope, nb::handle function, const char* name, bool method) {
  std::vector<Parameters> overloads;
  for (nb::handle overload : nb::borrow<nb::tuple>(function.attr("__nb_signature__")))
    overloads.push_back(parse_signature(nb::str(nb::borrow<nb::tuple>(overload)[0]).c_str()));
  for (const OtherName& names : kOtherNames) {
    const Lookup own = find_parameter(overloads, names.parameter, method);
    if (!own.present || find_parameter(overloads, names.alias, method).present) continue;
    const std::optional<size_t> position = own.position;
    if (method) {
      nb::cpp_function_def(
          [name, names, position](nb::handle self, nb::args args, nb::handle value, nb::kwargs kwargs) {
            return call_renamed(nb::getattr(self, name), name, names, position, std::move(args), value,
                                std::move(kwargs));
          },
          nb::scope(scope), nb::name(name), nb::is_method(), nb::arg("args"),
          nb::arg(names.alias), nb::arg("kwargs"));
    } else {
      nb::cpp_function_def(
          [scope, name, names, position](nb::args args, nb::handle value, nb::kwargs kwargs) {
            return call_renamed(nb::getattr(scope, name), name, names, position, std::move(args), value,
                                std::move(kwargs));
          },
          nb::scope(scope), nb::name(name), nb::arg("args"), nb::arg(names.alias),
          nb::arg("kwargs"));
    }
  }
}

// The names in `scope`'s namespace that are nanobind functions (the module's) or methods (Tensor's). Names are
// interned Python strings that live as long as the module, so their UTF-8 buffers can be captured.
void add_other_names_in(nb::handle scope, nb::handle namespace_dict, bool method) {
  std::vector<std::pair<const char*, nb::handle>> functions;
  for (auto [key, value] : nb::borrow<nb::dict>(namespace_dict)) {
    if (!nb::hasattr(value, "__nb_signature__")) continue;
    functions.emplace_back(PyUnicode_AsUTF8(key.ptr()), value);
  }
  for (const auto& [name, function] : functions) add_other_names(scope, function, name, method);
}

}  // namespace

void init_numpy_arg_names(nb::module_& m) {
  add_other_names_in(m, m.attr("__dict__"), false);
  nb::handle tensor = m.attr("Tensor");
  nb::dict methods;  // a copy: a class's __dict__ is a mappingproxy, and the loop below adds to the class
  if (PyDict_Merge(methods.ptr(), tensor.attr("__dict__").ptr(), 1) != 0) throw nb::python_error();
  add_other_names_in(tensor, methods, true);
}

}  // namespace tandem::py
