// PyTorch's argument-parser error for a call that no overload takes ("where() received an invalid combination
// of arguments - got (Tensor, NoneType), but expected one of: ..."), for bindings whose arguments nanobind
// lets through as objects (nanobind's own wording, "incompatible function arguments", is not what users
// search for).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "bindings.h"

namespace tandem::py {

// One overload as PyTorch prints it: its parameters ("Tensor input", "Number other"), what follows them
// ("*, Tensor out = None"), and whether PyTorch explains why it did not match ("didn't match because ...").
struct ParserSignature {
  std::vector<const char*> params;
  const char* keyword_only = nullptr;
  bool explained = true;
};

[[noreturn]] void throw_invalid_combination(const char* fn, std::initializer_list<nb::handle> given,
                                            const std::vector<ParserSignature>& signatures);

}  // namespace tandem::py
