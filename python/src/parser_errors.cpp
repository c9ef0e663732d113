// See parser_errors.h.
#include "parser_errors.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/error.h"

namespace tandem::py {
namespace {

PyObject* refused_call_hook = nullptr;  // kept for the life of the process

// Whether PyTorch's listing marks `h` as matching the printed parameter `entry`: it takes the text before the
// last space as the type and compares it with the name of h's type, so "Tensor input" takes a Tensor, a float
// never matches "Number value", and "bool keepdim = False" or "*" match nothing ("float" takes an int too).
bool fits(nb::handle h, const std::string& entry) {
  const size_t space = entry.rfind(' ');
  const std::string type = space == std::string::npos ? entry : entry.substr(0, space);
  const std::string name = parser_type_name(h);
  return name == type || (type == "float" && name == "int");
}

}  // namespace

std::string parser_argument_description(nb::handle h) {
  PyObject* o = h.ptr();
  const bool list = PyList_CheckExact(o), tuple = PyTuple_CheckExact(o);
  if (!list && !tuple) return parser_type_name(h);
  std::string items;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  for (Py_ssize_t i = 0; i < n; ++i)
    items += (i ? ", " : "") + parser_type_name(PySequence_Fast_GET_ITEM(o, i));
  if (list) return "list of [" + items + "]";
  return "tuple of (" + items + (n == 1 ? ",)" : ")");
}

namespace {

// "name" of a printed parameter as PyTorch reads it back: the text after the last space.
std::string entry_name(const std::string& entry) {
  const size_t space = entry.rfind(' ');
  return space == std::string::npos ? entry : entry.substr(space + 1);
}

// Items joined by ", ", each followed by ", " instead when there are no positionals (PyTorch's listing).
std::string listed(const std::vector<std::string>& items, bool positionals) {
  std::string text;
  for (const std::string& item : items) text += positionals ? (text.empty() ? "" : ", ") + item : item + ", ";
  return text;
}

}  // namespace

namespace {
// PyTorch's listing for positional arguments `given` and keywords `keywords` (in call order).
std::string invalid_combination_text(const char* fn, const std::vector<nb::handle>& given,
                                     const std::vector<ParserSignature>& signatures,
                                     std::vector<std::pair<std::string, nb::handle>> kw) {
  // Keywords come last-first, PyTorch's map order.
  std::reverse(kw.begin(), kw.end());
  const bool positionals = given.size() > 0;
  std::vector<std::string> got;
  for (nb::handle h : given) got.push_back(parser_type_name(h));
  for (const auto& [k, v] : kw) got.push_back(k + "=" + parser_type_name(v));
  std::string message = std::string(fn) + "() received an invalid combination of arguments - got (" +
                        listed(got, positionals) + "), but expected one of:\n";
  for (const ParserSignature& s : signatures) {
    std::vector<std::string> entries(s.params.begin(), s.params.end());
    if (s.keyword_only) {  // "*, Tensor out = None": each item an entry
      std::string rest = s.keyword_only;
      for (size_t at; (at = rest.find(", ")) != std::string::npos; rest.erase(0, at + 2))
        entries.push_back(rest.substr(0, at));
      entries.push_back(rest);
    }
    std::string printed;
    for (const std::string& e : entries) printed += (printed.empty() ? "" : ", ") + e;
    message += " * (" + printed + ")\n";
    if (entries.empty()) entries.push_back("");                // PyTorch reads "()" as one empty entry
    if (entries.size() != given.size() + kw.size()) continue;  // explained only with as many entries
    std::vector<std::string> wrong;
    for (const auto& [k, v] : kw) {
      bool named = false;
      for (size_t i = given.size(); i < entries.size(); ++i) named |= entry_name(entries[i]) == k;
      if (!named) wrong.push_back(k);
    }
    if (!wrong.empty()) {
      message +=
          "      didn't match because some of the keywords were incorrect: " + listed(wrong, true) + "\n";
      continue;
    }
    std::vector<std::string> marks;
    size_t i = 0;
    for (nb::handle h : given) {
      const bool ok = fits(h, entries[i++]);
      marks.push_back(ok ? parser_argument_description(h) : "!" + parser_argument_description(h) + "!");
    }
    for (; i < entries.size(); ++i) {
      const std::string name = entry_name(entries[i]);
      for (const auto& [k, v] : kw) {
        if (k != name) continue;
        const std::string text = k + "=" + parser_argument_description(v);
        marks.push_back(fits(v, entries[i]) ? text : "!" + text + "!");
      }
    }
    message += "      didn't match because some of the arguments have invalid types: (" +
               listed(marks, positionals) + ")\n";
  }
  return message;
}

// The refusal refuse_as_invalid_combination raised last on this thread, until a wrapper words it.
struct PendingRefusal {
  std::string first_line;
  std::string fn;
  std::vector<ParserSignature> signatures;
  std::string argument, expected;  // the argument no overload takes, and the type the plausible one wants
  std::string got;                 // its type's name
  std::string element;             // a tuple's or list's first item's type name ("" otherwise)
};

// How many arguments a signature takes: at least its parameters without a default, at most all of them.
// (A keyword-only parameter without a default, such as rand's "torch.Generator generator", is required too.)
std::pair<size_t, size_t> argument_range(const ParserSignature& s) {
  size_t required = 0, all = s.params.size();
  for (const char* p : s.params) required += std::strstr(p, " = ") ? 0 : 1;
  if (s.keyword_only)
    for (std::string_view rest = s.keyword_only;;) {
      const size_t at = rest.find(", ");
      const std::string_view entry = rest.substr(0, at);
      all += entry != "*";
      required += entry != "*" && entry.find(" = ") == std::string_view::npos;
      if (at == std::string_view::npos) break;
      rest.remove_prefix(at + 2);
    }
  return {required, all};
}

// A printed parameter's name: "tuple of ints dim" -> "dim", "bool keepdim = False" -> "keepdim".
std::string_view param_name(std::string_view entry) {
  entry = entry.substr(0, entry.find(" = "));
  const size_t space = entry.rfind(' ');
  return space == std::string_view::npos ? entry : entry.substr(space + 1);
}
thread_local PendingRefusal pending;

// A method's listing: no "Tensor input", no out= (and no lone "*" left after it).
std::vector<ParserSignature> method_form(const std::vector<ParserSignature>& signatures) {
  static std::set<std::string> texts;  // the shortened keyword texts, kept for the process (a handful)
  std::vector<ParserSignature> methods;
  for (const ParserSignature& s : signatures) {
    ParserSignature m;
    for (const char* p : s.params)
      if (std::string_view(p) != "Tensor input") m.params.push_back(p);
    if (s.keyword_only) {
      std::string rest = s.keyword_only;
      for (std::string out : {", Tensor out = None", ", tuple of Tensors out = None"})
        if (rest.size() >= out.size() && rest.compare(rest.size() - out.size(), out.size(), out) == 0)
          rest.resize(rest.size() - out.size());
      if (rest != "*") m.keyword_only = texts.insert(rest).first->c_str();
    }
    methods.push_back(std::move(m));
  }
  return methods;
}
}  // namespace

void throw_invalid_combination(const char* fn, std::initializer_list<nb::handle> given,
                               const std::vector<ParserSignature>& signatures,
                               std::initializer_list<std::pair<const char*, nb::handle>> keywords) {
  std::vector<std::pair<std::string, nb::handle>> kw(keywords.begin(), keywords.end());
  TANDEM_THROW(Type, invalid_combination_text(fn, std::vector<nb::handle>(given), signatures, std::move(kw)));
}

namespace {
thread_local std::string deferred_position;  // "fn(): argument 'arg' must be " from defer_argument_position
}  // namespace

void defer_argument_position(const char* fn, const char* arg) {
  deferred_position = std::string(fn) + "(): argument '" + arg + "' must be ";
}

void refuse_as_invalid_combination(const char* fn, std::vector<ParserSignature> signatures,
                                   const char* argument, nb::handle value, const char* expected) {
  const bool sequence =
      (PyTuple_Check(value.ptr()) || PyList_Check(value.ptr())) && PySequence_Size(value.ptr()) > 0;
  pending = {std::string(fn) + "() received an invalid combination of arguments",
             fn,
             std::move(signatures),
             argument,
             expected,
             parser_type_name(value),
             sequence ? parser_type_name(nb::steal(PySequence_GetItem(value.ptr(), 0))) : std::string()};
  TANDEM_THROW(Type, pending.first_line);
}

namespace {
// Registered at import, read only afterwards; a std::map keeps each entry's address.
std::map<std::string, std::vector<ParserSignature>>& registered_signatures() {
  static std::map<std::string, std::vector<ParserSignature>> signatures;
  return signatures;
}
}  // namespace

const std::vector<ParserSignature>& register_parser_signatures(const char* fn,
                                                               std::vector<ParserSignature> signatures) {
  return registered_signatures()[fn] = std::move(signatures);
}

const std::vector<ParserSignature>* registered_parser_signatures(const char* fn) {
  const auto found = registered_signatures().find(fn);
  return found == registered_signatures().end() ? nullptr : &found->second;
}

nb::object parser_signatures(const std::string& fn) {
  const auto found = registered_signatures().find(fn);
  if (found == registered_signatures().end()) return nb::none();
  nb::list overloads;
  for (const ParserSignature& s : found->second) {
    nb::list params;
    for (const char* p : s.params) params.append(p);
    overloads.append(
        nb::make_tuple(params, s.keyword_only ? nb::object(nb::str(s.keyword_only)) : nb::none()));
  }
  return overloads;
}

void set_refused_call_hook(nb::handle hook) {
  Py_XDECREF(refused_call_hook);
  refused_call_hook = Py_NewRef(hook.ptr());
}

PyObject* explain_refused_call(PyObject* function, PyObject* const* args, size_t nargsf, PyObject* kwnames,
                               PyObject* method_name) {
  if (!refused_call_hook || !PyErr_ExceptionMatches(PyExc_TypeError)) return nullptr;
  nb::python_error refused;  // takes the error out; restored unless PyTorch's message replaces it
  try {
    nb::str text = nb::str(refused.value());
    if (!pending.fn.empty() && pending.first_line == text.c_str()) {  // refuse_as_invalid_combination's
      PendingRefusal refusal = std::move(pending);
      pending = {};
      const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
      std::vector<nb::handle> given(args + (method_name ? 1 : 0), args + nargs);
      std::vector<std::pair<std::string, nb::handle>> keywords;
      for (Py_ssize_t i = 0, n = kwnames ? PyTuple_GET_SIZE(kwnames) : 0; i < n; ++i)
        keywords.emplace_back(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i)), nb::handle(args[nargs + i]));
      const std::vector<ParserSignature> signatures =
          method_name ? method_form(refusal.signatures) : refusal.signatures;
      // As PyTorch's parser: when one overload alone takes this many arguments, its own error for the
      // argument.
      const size_t count = given.size() + keywords.size();
      size_t plausible = 0;
      const ParserSignature* chosen = nullptr;
      for (const ParserSignature& s : signatures) {
        const auto [low, high] = argument_range(s);
        if (low <= count && count <= high) {
          ++plausible;
          chosen = &s;
        }
      }
      std::string message;
      if (plausible == 1) {
        bool by_keyword = false;
        for (const auto& [k, v] : keywords) by_keyword |= k == refusal.argument;
        // a positional one is at its parameter's place in that overload (where the overload names it; else
        // the first the binding could not take after the leading tensors)
        size_t position = 0, named = chosen->params.size();
        for (size_t i = 0; i < chosen->params.size(); ++i)
          if (param_name(chosen->params[i]) == refusal.argument) named = i;
        if (!by_keyword && named < chosen->params.size()) {
          position = named < given.size() ? named + 1 : 0;
        } else {
          for (size_t i = 0; i < given.size() && !by_keyword; ++i)
            if (parser_type_name(given[i]) == refusal.got && !(i == 0 && !method_name)) {
              position = i + 1;
              break;
            }
        }
        // a list refused for its first item names that item when given by position, as PyTorch's parser
        const bool element = position && !refusal.element.empty() && refusal.expected.starts_with("tuple of");
        message = refusal.fn + "(): argument '" + refusal.argument + "'" +
                  (position ? " (position " + std::to_string(position) + ")" : "") + " must be " +
                  refusal.expected +
                  (element ? ", but found element of type " + refusal.element + " at pos 0"
                           : ", not " + refusal.got);
      } else {
        message = invalid_combination_text(refusal.fn.c_str(), given, signatures, std::move(keywords));
      }
      PyErr_SetString(PyExc_TypeError, message.c_str());
      return nullptr;
    }
    if (!std::strstr(text.c_str(), "(): incompatible function arguments")) {
      // a deferred "f(): argument 'x' must be ...": the hook adds x's position when the call gave it by
      // position
      const bool deferred =
          !deferred_position.empty() && std::string_view(text.c_str()).starts_with(deferred_position);
      deferred_position.clear();
      if (!deferred) {
        refused.restore();
        return nullptr;
      }
    }
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    nb::tuple positional = nb::steal<nb::tuple>(PyTuple_New(nargs));
    if (!positional.is_valid()) throw nb::python_error();  // out of memory: nanobind's message stays
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(positional.ptr(), i, Py_NewRef(args[i]));
    nb::dict keywords;
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; ++i) keywords[PyTuple_GET_ITEM(kwnames, i)] = nb::handle(args[nargs + i]);
    nb::object message = nb::borrow(refused_call_hook)(
        nb::handle(function), positional, keywords, method_name ? nb::handle(method_name) : nb::none(), text);
    if (message.is_none()) {
      refused.restore();
      return nullptr;
    }
    PyErr_SetObject(PyExc_TypeError, message.ptr());
  } catch (nb::python_error&) {
    refused.restore();  // a failure to explain keeps nanobind's message
  }
  return nullptr;
}

}  // namespace tandem::py
