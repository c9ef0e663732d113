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

// For a binding whose arguments PyTorch's parser refuses with its "invalid combination" listing of
// `signatures` (the function's form) but whose own parameters cannot tell how they were passed: raises a
// TypeError that the public-function and Tensor-method wrappers (explain_refused_call) word from the call as
// made, its positional and keyword arguments, a method's listing without self's "Tensor input" and the out=
// entries (as PyTorch prints its methods'). When one overload alone takes that many arguments, PyTorch's
// parser gives that overload's error instead: "fn(): argument '<argument>' (position n) must be <expected>,
// not <value's type>" (the position only for an argument given by position). Outside such a wrapper the short
// first line stays.
[[noreturn]] void refuse_as_invalid_combination(const char* fn, std::vector<ParserSignature> signatures,
                                                const char* argument, nb::handle value, const char* expected);

// PyTorch's overloads of `fn`, for a binding whose own parameters differ from them (one binding with NumPy's
// aliases where PyTorch has overloads): the wrappers' explanation of a call nanobind refused
// (python/tandem/_parser_errors.py, through _C._parser_signatures) reads these instead of the binding's
// signature, so the call gets PyTorch's message. Registered once, at import; returns the stored overloads.
const std::vector<ParserSignature>& register_parser_signatures(const char* fn,
                                                               std::vector<ParserSignature> signatures);

// For a binding shared by a function and its method (their positions differ): its next error "fn(): argument
// 'arg' must be ..." gets the position PyTorch's parser names when the call gave `arg` by position, from the
// wrapper that knows how the call was made. Call it just before raising that error.
void defer_argument_position(const char* fn, const char* arg);

// Called after `function(*args)` returned NULL (from a public function's wrapper, or a Tensor method's with
// its `method_name`, args[0] then being self): when the error is nanobind's refusal of the arguments,
// replaces it with PyTorch's parser error for the call, which python/tandem/_parser_errors.py writes from the
// function's __nb_signature__; likewise refuse_as_invalid_combination's and defer_argument_position's errors.
// Any other error is left as it is. Returns nullptr, the failed call's result.
PyObject* explain_refused_call(PyObject* function, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                               PyObject* method_name);

// The overloads registered for `fn`, or null.
const std::vector<ParserSignature>* registered_parser_signatures(const char* fn);

// The overloads registered for `fn` as [(params, keyword-only text or None)], or None
// (_C._parser_signatures).
nb::object parser_signatures(const std::string& fn);

// tandem._parser_errors.message, set once at import (python/tandem/_builtin_functions.py).
void set_refused_call_hook(nb::handle hook);

}  // namespace tandem::py
