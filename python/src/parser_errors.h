// PyTorch's argument-parser errors. nanobind's own wording for a call no overload takes, "incompatible
// function arguments", is not what users read or search for: a binding that takes its arguments as objects
// raises PyTorch's "where() received an invalid combination of arguments - got (Tensor, NoneType), but
// expected one of: ..." itself, and the public-function and Tensor-method wrappers turn nanobind's refusal of
// a typed binding into PyTorch's message ("isclose(): argument 'other' (position 2) must be Tensor, not
// float").
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"

namespace tandem::py {

// One overload as PyTorch prints it: its parameters ("Tensor input", "Number other") and what follows them
// ("*, Tensor out = None").
struct ParserSignature {
  std::vector<const char*> params;
  const char* keyword_only = nullptr;
};

// PyTorch's "fn() received an invalid combination of arguments - got (...), but expected one of: ..." for the
// positional arguments `given` and the keyword arguments `keywords`, with its "didn't match because ..."
// lines (python/tandem/_parser_errors.py describes the rules, quirks included).
[[noreturn]] void throw_invalid_combination(
    const char* fn, std::initializer_list<nb::handle> given, const std::vector<ParserSignature>& signatures,
    std::initializer_list<std::pair<const char*, nb::handle>> keywords = {});

// An argument as PyTorch's "didn't match because" line describes it: its type's name, a list or tuple with
// its items' ("list of [int]", "tuple of (int, int)", "tuple of (list,)").
std::string parser_argument_description(nb::handle h);

// Called after `function(*args)` returned NULL (from a public function's wrapper, or a Tensor method's with
// its `method_name`, args[0] then being self): when the error is nanobind's refusal of the arguments,
// replaces it with PyTorch's parser error for the call, which python/tandem/_parser_errors.py writes from the
// function's
// __nb_signature__. Any other error is left as it is. Returns nullptr, the failed call's result.
PyObject* explain_refused_call(PyObject* function, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                               PyObject* method_name);

// tandem._parser_errors.message, set once at import (python/tandem/_builtin_functions.py).
void set_refused_call_hook(nb::handle hook);

}  // namespace tandem::py
