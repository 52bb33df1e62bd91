"""Canonical test code compiled by the scorer, so that the code under test cannot bend it.

Standard library only at import (pytest is imported by `compile_canonical` alone). On top
of pytest's assertion rewriting, every canonical test module is compiled with:

- **strict comparisons**: each `==`, `!=`, `in` and `not in` of an `assert` goes through
  `strict_eq` (and friends) instead of the operands' own methods. An operand whose type
  defines `__eq__` in code that is not trusted (the workspace's) is first asked whether it
  equals a fresh `object()`; an always-equal object says yes and fails the comparison
  (the finding is reported). Values of user subclasses of `int`, `str`, `list`, `dict`...
  are compared by their built-in value, never by their overridden methods; dataclass
  instances field by field; an object that equals two different values of a built-in type
  is flagged as well.
- **strict lengths**: each call `len(x)` written in canonical code goes through
  `strict_len` (a workspace `__len__` must agree with iterating `x`); a `len` that the test
  hands to other code (`key=len`) is the builtin, so a library's own use of it is not judged.
- **helpers out of reach**: every function of the module gets a keyword-only parameter
  `__swarm__` whose default is the tuple `HELPERS`; the comparisons and the completion
  marker are looked up in that local, which the code under test cannot rebind.
- **genuine builtins**: the module's `__builtins__` is `BUILTINS`, a copy of the builtins
  taken before any code under test ran (and watched by the guard), so
  `builtins.ValueError = Exception` does not change what a canonical test means by
  `ValueError`.
- **a completion marker**: every function calls `__swarm__[0]("swarm_envs.done")` (that is
  `sys.audit`) at each exit (a test's function need not be named `test*`). The guard accepts
  the marker only from the canonical code of the test that is running; a test counts as
  passed only if its body ran to the end.
"""

from __future__ import annotations

import ast
import builtins
import functools
import os
import sys
import sysconfig
import types

from . import settings as _settings

DONE_EVENT = "swarm_envs.done"
FINDING_EVENT = "swarm_envs.finding"
PARAM = "__swarm__"
_RT = "@swarm_rt"
_H = "@swarm_h"
DONE, EQ, NE, IN, NOT_IN, RAISED, NOT_RAISED, CALL_RAISES, TRUTH, SIGNATURE, SHELL, LEN = range(12)
HANDED_EQ, HANDED_NE, OWN_EQ, OWN_NE = 12, 13, 14, 15
#: what `make_shell` tells the guard: (shell code, body code)
SHELL_EVENT = "swarm_envs.shell"
#: the free variable of a shell's code: the function whose signature it shows
SHELL_VAR = "@swarm_body"
#: the finding of a dunder method of the workspace that its object's state contradicts
LYING = "lying_dunder"

#: code from these places defines types whose `__eq__` is trusted
TRUSTED_PREFIXES: tuple[str, ...] = tuple(
    sorted(
        {
            os.path.realpath(p) + os.sep
            for key in ("stdlib", "platstdlib", "purelib", "platlib")
            if (p := sysconfig.get_paths().get(key))
        }
        | {os.path.dirname(os.path.realpath(__file__)) + os.sep}
        # The task's own third-party packages, installed by the host (`settings.site_dir`).
        | {os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "site", "")}
        # The scorer's private pytest, as the sandbox shows it (`settings.harness_dir`).
        | {os.path.realpath(h) + os.sep for h in (_settings.harness_dir(),) if h}
    )
) + ("<frozen ",)

#: the builtins of canonical code: a copy taken before any code under test ran (a real dict:
#: the interpreter's import machinery requires one; the guard checks it is unchanged).
#: Its `len` is the real one: only the calls of `len` written in canonical code go to
#: `strict_len` (`len_call`); a `len` handed to a library (`key=len`) stays the builtin.
BUILTINS = dict(builtins.__dict__)

_EXACT_SCALARS = frozenset({int, float, complex, str, bytes, bool, type(None)})
_mro = type.__dict__["__mro__"].__get__
_tdict = type.__dict__["__dict__"].__get__
_tname = type.__dict__["__qualname__"].__get__
_code_of = types.FunctionType.__dict__["__code__"].__get__
_MISSING = object()
_DC_MARK = object()


def _lookup(t, name, _mro=_mro, _tdict=_tdict, _missing=_MISSING):  # noqa: ANN001, ANN202
    """The class attribute `name` of type `t`, read without running any of its code."""
    for k in _mro(t):
        v = _tdict(k).get(name, _missing)
        if v is not _missing:
            return v
    return None


def _untrusted(  # noqa: ANN202
    x,  # noqa: ANN001
    name="__eq__",  # noqa: ANN001
    _type=type,
    _lookup=_lookup,
    _fn=types.FunctionType,
    _code_of=_code_of,
    _trusted=TRUSTED_PREFIXES,
    _isinstance=isinstance,
    _wrappers=(types.WrapperDescriptorType, types.MethodWrapperType, types.BuiltinFunctionType),
    _str=str,
):
    """True if `x`'s `name` method is code that is not trusted (the workspace's)."""
    m = _lookup(_type(x), name)
    if m is None or _isinstance(m, _wrappers):
        return False
    if _isinstance(m, _fn):
        f = _code_of(m).co_filename
        return not (_type(f) is _str and f.startswith(_trusted))
    return True  # some other callable object


def _says_true(thunk, _bool=bool):  # noqa: ANN001, ANN202
    try:
        return _bool(thunk())
    except Exception:  # noqa: BLE001 - an object that cannot answer does not lie
        return False


def _flag(detail, kind="always_equal", _audit=sys.audit, _event=FINDING_EVENT):  # noqa: ANN001, ANN202
    _audit(_event, kind, detail)


def _probe(x, _object=object, _says_true=_says_true):  # noqa: ANN001, ANN202
    """True if `x` claims to equal a fresh object (which nothing honest does)."""
    return _says_true(lambda: x == _object())


def _other(v, _type=type, _float=float, _object=object):  # noqa: ANN001, ANN202
    """A value of the same built-in type that differs from `v`."""
    t = _type(v)
    if t is list:
        return [*v, _object()]
    if t is tuple:
        return (*v, _object())
    if t is dict:
        return {**v, _object(): 0}
    if t is set or t is frozenset:
        return t((*v, _object()))
    if t is bool:
        return not v
    if t is int or t is complex:
        return v + 1
    if t is float:
        return v + 1.0 if v - v == 0.0 else 0.0
    if t is str:
        return v + "\x00"
    if t is bytes:
        return v + b"\x00"
    return 0


def _canon(  # noqa: ANN202, C901 - one case per built-in kind
    x,  # noqa: ANN001
    depth=0,  # noqa: ANN001
    found=None,  # noqa: ANN001
    _type=type,
    _isinstance=isinstance,
    _exact=_EXACT_SCALARS,
    _untrusted=_untrusted,
    _probe=_probe,
    _flag=_flag,
    _tname=_tname,
    _lookup=_lookup,
    _mv=memoryview,
    _bytes=bytes,
    _list=list,
    _tuple=tuple,
    _dict=dict,
    _set=set,
    _frozenset=frozenset,
    _int_add=int.__add__,
    _float_add=float.__add__,
    _complex_add=complex.__add__,
    _str_str=str.__str__,
    _list_iter=list.__iter__,
    _tuple_iter=tuple.__iter__,
    _dict_items=dict.items,
    _set_iter=set.__iter__,
    _fset_iter=frozenset.__iter__,
    _getattr=getattr,
    _mark=_DC_MARK,
    _fn=types.FunctionType,
    _code_of=_code_of,
):
    """`x` as built-in values where it is one (user subclasses lose their methods).

    `found`: a list that collects the objects whose own `__eq__` (the workspace's) will
    decide the comparison, for `_judge` to judge.
    """
    t = _type(x)
    if t in _exact or depth > 64:
        return x
    lies = _untrusted(x)
    if lies and _probe(x):
        _flag(f"an object of type {_tname(t)} claims to equal a fresh object()")
        return _mark  # equal to nothing but itself
    d = depth + 1
    fields = _lookup(t, "__dataclass_fields__")
    params = _lookup(t, "__dataclass_params__")
    eq = _lookup(t, "__eq__")
    generated = _type(eq) is _fn and _code_of(eq).co_filename == "<string>"
    if generated and _getattr(params, "eq", False) and _type(fields) is _dict:
        try:
            values = _tuple(
                _canon(_getattr(x, name), d, found)
                for name, f in fields.items()
                if _getattr(f, "compare", True)
            )
        except Exception:  # noqa: BLE001 - compare as Python would
            return x
        return (_mark, t, values)
    if lies:
        # Its own __eq__ decides (an honest one may equal other kinds of values: a URI
        # its string); what it does is judged afterwards (`_lie`).
        if found is not None:
            found.append(x)
        return x
    if t is tuple:
        return _tuple(_canon(e, d, found) for e in _tuple_iter(x))
    if t is list:
        return _list(_canon(e, d, found) for e in _list_iter(x))
    if t is dict:
        return {_canon(k, d, found): _canon(v, d, found) for k, v in _dict_items(x)}
    if t is frozenset:
        return _frozenset(_canon(e, d, found) for e in _fset_iter(x))
    if t is set:
        return _set(_canon(e, d, found) for e in _set_iter(x))
    return x


_getset = types.GetSetDescriptorType
_member = types.MemberDescriptorType
_object_new = object.__new__
#: pairs `_judge` looks at in one comparison before it gives up (no verdict)
_BUDGET = 2_000


def _state(  # noqa: ANN202
    x,  # noqa: ANN001
    _type=type,
    _mro=_mro,
    _tdict=_tdict,
    _getset=_getset,
    _member=_member,
    _isinstance=isinstance,
    _dict=dict,
    _str=str,
    _tuple=tuple,
):
    """`x`'s instance state as {name: value} (its `__dict__` and slots), None if hidden.

    Read through the interpreter's own descriptors, never through the class's code: a
    class that defines `__dict__` itself hides its state (None).
    """
    out = {}
    for k in _mro(_type(x)):
        td = _tdict(k)
        dd = td.get("__dict__")
        if dd is not None and "__dict__" not in out:
            if not _isinstance(dd, _getset):
                return None
            d = dd.__get__(x)
            if _type(d) is not _dict:
                return None
            out["__dict__"] = d
        slots = td.get("__slots__", ())
        for name in (slots,) if _type(slots) is _str else slots:
            m = td.get(name)
            if _isinstance(m, _member):
                try:
                    out[name] = m.__get__(x)
                except AttributeError:
                    pass
    state = _dict(out.pop("__dict__", {}))
    state.update(out)
    return state


#: elements `_items` reads before it gives up (no verdict)
_MAX_ITEMS = 10_000


def _items(  # noqa: ANN202
    c,  # noqa: ANN001
    _lookup=_lookup,
    _type=type,
    _iter=iter,
    _next=next,
    _max=_MAX_ITEMS,
):
    """The elements of `c` if it can be iterated without consuming it, else None.

    An iterator (`iter(c) is c`) would lose what the test reads next: not judged.
    """
    if _lookup(_type(c), "__iter__") is None:
        return None
    try:
        it = _iter(c)
        if it is c:
            return None
        out = []
        for _ in range(_max + 1):
            try:
                out.append(_next(it))
            except StopIteration:
                return out
    except Exception:  # noqa: BLE001 - a container that cannot be iterated is not judged
        return None
    return None  # too many to judge


def _other2(v, _type=type, _object=object, _other=_other, _none=None.__class__):  # noqa: ANN001, ANN202
    """A second value of `v`'s built-in type that differs from `v` and from `_other(v)`."""
    t = _type(v)
    if t is list:
        return [_object(), *v]
    if t is tuple:
        return (_object(), *v)
    if t is dict:
        return {**v, _object(): 1}
    if t is int or t is complex:
        return v + 2
    if t is float:
        return v + 2.0 if v - v == 0.0 else 1.0
    if t is str:
        return "\x01" + v
    if t is bytes:
        return b"\x01" + v
    if t is _none:
        return ""
    return _other(v)


_VALUE_BASES = (bool, int, float, complex, str, bytes, tuple, frozenset)
_MUTABLE_BASES = (list, dict, set)


def _builtin_value(  # noqa: ANN202
    x,  # noqa: ANN001
    _isinstance=isinstance,
    _int_add=int.__add__,
    _float_add=float.__add__,
    _complex_add=complex.__add__,
    _str_str=str.__str__,
    _bytes=bytes,
    _mv=memoryview,
    _tuple=tuple,
    _tuple_iter=tuple.__iter__,
    _frozenset=frozenset,
    _fset_iter=frozenset.__iter__,
    _list=list,
    _list_iter=list.__iter__,
    _dict=dict,
    _dict_items=dict.items,
    _set=set,
    _set_iter=set.__iter__,
    _bool=bool,
    _int=int,
    _float=float,
    _complex=complex,
    _str=str,
):
    """(base, value) of an object of a subclass of a built-in type, read without its code."""
    if _isinstance(x, _bool):
        return _bool, x
    if _isinstance(x, _int):
        return _int, _int_add(x, 0)
    if _isinstance(x, _float):
        return _float, _float_add(x, 0.0)
    if _isinstance(x, _complex):
        return _complex, _complex_add(x, 0j)
    if _isinstance(x, _str):
        return _str, _str_str(x)
    if _isinstance(x, _bytes):
        return _bytes, _bytes(_mv(x))
    if _isinstance(x, _tuple):
        return _tuple, _tuple(_tuple_iter(x))
    if _isinstance(x, _frozenset):
        return _frozenset, _frozenset(_fset_iter(x))
    if _isinstance(x, _list):
        return _list, _list(_list_iter(x))
    if _isinstance(x, _dict):
        return _dict, _dict(_dict_items(x))
    if _isinstance(x, _set):
        return _set, _set(_set_iter(x))
    return None, None


def _instance(  # noqa: ANN202, C901 - one case per kind of base
    t,  # noqa: ANN001
    value,  # noqa: ANN001
    state,  # noqa: ANN001
    base,  # noqa: ANN001
    _new=_object_new,
    _lookup=_lookup,
    _getset=_getset,
    _member=_member,
    _isinstance=isinstance,
    _type=type,
    _values=_VALUE_BASES,
    _exc=Exception,
):
    """A new object of class `t`, built-in value `value`, instance state `state`.

    Made without running any code of the class (the built-in type's own `__new__`, the
    interpreter's descriptors); None where that cannot be done.
    """
    try:
        if base is None:
            y = _new(t)
        elif base in _values:
            y = base.__new__(t, value)
        else:
            y = base.__new__(t)
            base.__init__(y, value)
    except Exception:  # noqa: BLE001 - a class we cannot make without its code: no probe
        return None
    dd = _lookup(t, "__dict__")
    for key, v in state.items():
        m = _lookup(t, key) if _type(key) is str else None
        try:
            if _isinstance(m, _member):
                m.__set__(y, v)
            elif _isinstance(dd, _getset):
                dd.__get__(y)[key] = v
            else:
                return None
        except Exception:  # noqa: BLE001
            return None
    return y


def _fresh_value(  # noqa: ANN202
    v,  # noqa: ANN001
    _type=type,
    _object=object,
    _other=_other,
    _len=len,
    _tuple=tuple,
    _list=list,
    _frozenset=frozenset,
    _set=set,
    _dict=dict,
    _str=str,
    _bytes=bytes,
):
    """A value of `v`'s built-in type that shares no part with it (all elements fresh)."""
    t = _type(v)
    if t is _tuple or t is _list:
        return t(_object() for _ in range(_len(v) or 1))
    if t is _frozenset or t is _set:
        return t((_object(),))
    if t is _dict:
        return {_object(): _object()}
    if t is _str:
        return "\x00" * (_len(v) + 1)
    if t is _bytes:
        return b"\x00" * (_len(v) + 1)
    return _other(v)


def _sentinel(  # noqa: ANN202
    x,  # noqa: ANN001
    _type=type,
    _state=_state,
    _object=object,
    _fresh=_fresh_value,
    _builtin_value=_builtin_value,
    _instance=_instance,
):
    """A fresh object of `x`'s class with other state (every field a fresh object()).

    None for an object without state (every instance alike) or one we cannot make.
    """
    t = _type(x)
    state = _state(x)
    if state is None:
        return None
    base, value = _builtin_value(x)
    if base is None and not state:
        return None
    fresh = {k: _object() for k in state}
    return _instance(t, _fresh(value) if base is not None else None, fresh, base)


def _perturbed(  # noqa: ANN202
    y,  # noqa: ANN001
    n,  # noqa: ANN001
    _type=type,
    _exact=_EXACT_SCALARS,
    _state=_state,
    _other=_other,
    _other2=_other2,
    _builtin_value=_builtin_value,
    _instance=_instance,
    _containers=(list, tuple, dict, set, frozenset),
):
    """A copy of `y` with every part of its value changed (`n`: 1 or 2, two ways), or None."""
    change = _other if n == 1 else _other2
    t = _type(y)
    if t in _exact or t in _containers:
        return change(y)
    state = _state(y)
    if state is None:
        return None
    base, value = _builtin_value(y)
    if base is None and not state:
        return None
    return _instance(
        t,
        change(value) if base is not None else None,
        {k: change(v) for k, v in state.items()},
        base,
    )


def _lie(  # noqa: ANN202
    x,  # noqa: ANN001
    y,  # noqa: ANN001
    _says_true=_says_true,
    _sentinel=_sentinel,
    _perturbed=_perturbed,
    _tname=_tname,
    _type=type,
    _values=_EXACT_SCALARS | {list, tuple, dict, set, frozenset},
):
    """(kind, why) `x` (whose workspace `__eq__` called it equal to `y`) cannot honestly be.

    ("", "") where it can. The kind is `always_equal` for a value of a built-in type that
    `x` equals with two altered copies (the old "two different values"), `lying_dunder`
    otherwise.

    Judged by what `__eq__` does, not by what it reads: equal to a fresh object of its own
    class with other state, or to `y` changed throughout in two ways, it equals things no
    honest comparison does. One that compares part of its state (a schema by its source)
    differs from both.
    """
    s = _sentinel(x)
    if s is not None and _says_true(lambda: x == s):
        why = f"an object of type {_tname(_type(x))} equals a fresh one of its class"
        return LYING, why + " with other state"
    p1, p2 = _perturbed(y, 1), _perturbed(y, 2)
    if (
        p1 is not None
        and p2 is not None
        and _says_true(lambda: x == p1)
        and _says_true(lambda: x == p2)
    ):
        why = (
            f"an object of type {_tname(_type(x))} equals a value of type "
            f"{_tname(_type(y))} and two altered copies of it"
        )
        return ("always_equal" if _type(y) in _values else LYING), why
    return "", ""


def _judge(  # noqa: ANN202, C901 - one case per kind of value
    a,  # noqa: ANN001
    b,  # noqa: ANN001
    depth,  # noqa: ANN001
    budget,  # noqa: ANN001
    _type=type,
    _exact=_EXACT_SCALARS,
    _untrusted=_untrusted,
    _lie=_lie,
    _len=len,
    _list_iter=list.__iter__,
    _tuple_iter=tuple.__iter__,
    _dict_items=dict.items,
    _zip=zip,
):
    """The first lie in a claimed equality of `a` and `b`, walked in parallel, or "".

    Lists and tuples element by element, dicts by key; a pair in which one side's
    `__eq__` is the workspace's is judged by `_lie`.
    """
    budget[0] -= 1
    if budget[0] < 0 or depth > 32:
        return "", ""
    ta, tb = _type(a), _type(b)
    if ta in _exact and tb in _exact:
        return "", ""
    if _untrusted(a):
        return _lie(a, b)
    if _untrusted(b):
        return _lie(b, a)
    d = depth + 1
    if (ta is list and tb is list) or (ta is tuple and tb is tuple):
        it = _list_iter if ta is list else _tuple_iter
        if _len(a) != _len(b):
            return "", ""
        for x, y in _zip(it(a), it(b)):
            why = _judge(x, y, d, budget)
            if why[0]:
                return why
        return "", ""
    if ta is dict and tb is dict:
        for k, v in _dict_items(a):
            if k in b:
                why = _judge(v, b[k], d, budget)
                if why[0]:
                    return why
    return "", ""


def strict_eq(  # noqa: ANN201
    a,  # noqa: ANN001
    b,  # noqa: ANN001
    _type=type,
    _exact=_EXACT_SCALARS,
    _canon=_canon,
    _judge=_judge,
    _flag=_flag,
    _budget=_BUDGET,
):
    """`a == b` that an always-equal object, or any lying `__eq__`, cannot pass.

    Where the workspace's own `__eq__` decides (a class of the project, a subclass of a
    built-in type), a claimed equality is judged by what that `__eq__` does (`_lie`).
    """
    ta, tb = _type(a), _type(b)
    if ta in _exact and tb in _exact:
        return a == b
    found = []
    ca, cb = _canon(a, 0, found), _canon(b, 0, found)
    result = ca == cb
    if result and found:
        kind, why = _judge(ca, cb, 0, [_budget])
        if kind:
            _flag(why, kind)
            return False
        # A second look: an `__eq__` that said yes once and no to the probes since.
        if not ca == cb:
            _flag("an __eq__ of the project answered the same comparison two ways", LYING)
            return False
    return result


def strict_ne(a, b, _strict_eq=strict_eq):  # noqa: ANN001, ANN201
    """`a != b`, as the negation of `strict_eq`."""
    return not _strict_eq(a, b)


def strict_in(  # noqa: ANN201
    a,  # noqa: ANN001
    c,  # noqa: ANN001
    _type=type,
    _canon=_canon,
    _strict_eq=strict_eq,
    _untrusted=_untrusted,
    _says_true=_says_true,
    _object=object,
    _flag=_flag,
    _tname=_tname,
    _sequences=(list, tuple),
    _hashed=(set, frozenset, dict, str, bytes, bytearray, range),
    _any=any,
    _mark=_DC_MARK,
    _items=_items,
    _sentinel=_sentinel,
):
    """`a in c`, where neither a lying element nor a lying container can pass.

    A container of the workspace whose `__contains__` says yes must also yield an equal
    element when iterated (where it can be iterated without being consumed), if it yields
    nothing at all or values of the asked value's type.
    """
    tc = _type(c)
    if tc in _sequences:
        return _any(_strict_eq(a, e) for e in c)
    if _canon(a) is _mark:  # a lying element (flagged)
        return False
    if tc not in _hashed and _untrusted(c, "__contains__"):
        if _says_true(lambda: _object() in c):
            # A complement set honestly holds almost everything: what a fresh one of its
            # class with other state (every field a fresh object()) says decides.
            s = _sentinel(c)
            if s is None or _says_true(lambda: _object() in s):
                _flag(f"a container of type {_tname(tc)} claims to contain a fresh object()")
                return False
        if a not in c:
            return False
        items = _items(c)
        # Judged where iterating shows what it holds: nothing at all, or values of the
        # asked value's type. A container of intervals holds numbers it never yields.
        ta = _type(a)
        if (
            items is not None
            and (not items or _any(_type(e) is ta for e in items))
            and not _any(_strict_eq(a, e) for e in items)
        ):
            _flag(
                f"a container of type {_tname(tc)} claims to contain a value that iterating "
                "it never yields",
                LYING,
            )
            return False
        return True
    return a in c


def strict_not_in(a, c, _strict_in=strict_in):  # noqa: ANN001, ANN201
    """`a not in c`, as the negation of `strict_in`."""
    return not _strict_in(a, c)


_static_func = staticmethod.__dict__["__func__"].__get__


def _project_callable(  # noqa: ANN202
    f,  # noqa: ANN001
    _type=type,
    _mro=_mro,
    _lookup=_lookup,
    _fn=types.FunctionType,
    _static=staticmethod,
    _static_func=_static_func,
    _code_of=_code_of,
    _trusted=TRUSTED_PREFIXES,
    _str=str,
    _param=PARAM,
):
    """True if calling `f` runs the workspace's code first.

    That is a function of the project, or a class whose construction (`__new__`,
    `__init__`, its metaclass' `__call__`) is the project's. Read without running any of
    its code; anything else (a builtin, a library's callable, the tests' own helpers, an
    object of unknown kind) is not, and keeps the strict judgement: code that may take the
    truth of what it is handed.
    """

    def ours(m):  # noqa: ANN001, ANN202
        if _type(m) is _static:
            m = _static_func(m)
        if _type(m) is not _fn:
            return False
        code = _code_of(m)
        if _param in code.co_varnames:
            return False  # canonical code (`harden` gave it the parameter): the test's own
        if code.co_name == "<lambda>":
            return False  # `harden` gives a lambda no parameter: it may be the test's own
        name = code.co_filename
        return not (_type(name) is _str and name.startswith(_trusted))

    if _type(f) is _fn:
        return ours(f)
    if type in _mro(_type(f)):
        return (
            ours(_lookup(f, "__new__"))
            or ours(_lookup(f, "__init__"))
            or ours(_lookup(_type(f), "__call__"))
        )
    return False


def handed_eq(f, a, b, _project=_project_callable, _strict_eq=strict_eq, _bool=bool, _type=type):  # noqa: ANN001, ANN201
    """`a == b` whose result a test hands to `f` (`glom(target, M == 1)`), not asserts.

    Handed to the project's own function, an `__eq__` that builds a value instead of
    answering (glom's `M == 1`, a query builder's column expression) is data for that
    function, which decides what it means (and whose result the assert then judges): the
    value is passed on as built. An answer (`True`/`False`), or anything handed to other
    code (`bool`, a library), is judged as every asserted comparison is (`strict_eq`).
    """
    if _project(f):
        r = a == b
        if _type(r) is not _bool:
            return r
    return _strict_eq(a, b)


def handed_ne(f, a, b, _project=_project_callable, _strict_ne=strict_ne, _bool=bool, _type=type):  # noqa: ANN001, ANN201
    """`a != b` handed to `f`: as `handed_eq`."""
    if _project(f):
        r = a != b
        if _type(r) is not _bool:
            return r
    return _strict_ne(a, b)


def _tests_own_class(  # noqa: ANN202
    cls,  # noqa: ANN001
    _type=type,
    _mro=_mro,
    _lookup=_lookup,
    _fn=types.FunctionType,
    _code_of=_code_of,
    _param=PARAM,
    _project=_project_callable,
):
    """True for a class of the canonical tests whose `__eq__` is theirs, built by them."""
    if type not in _mro(_type(cls)):
        return False
    m = _lookup(cls, "__eq__")
    if _type(m) is not _fn or _param not in _code_of(m).co_varnames:
        return False
    return not _project(cls)  # its construction (`__new__`, `__init__`) is not the project's


def own_eq(  # noqa: ANN201
    cls,  # noqa: ANN001
    a,  # noqa: ANN001
    b,  # noqa: ANN001
    _type=type,
    _lookup=_lookup,
    _own=_tests_own_class,
    _strict_eq=strict_eq,
    _object=object,
    _declined=NotImplemented,
    _says_true=_says_true,
    _bool=bool,
):
    """`a == b` where the test built `b` itself, as `cls(...)` (toolz's `f == AlwaysEquals()`).

    Where `a`'s `__eq__` declines (NotImplemented), Python lets `b`'s, the tests' own,
    decide. Its answer is the test's, not the project's, when it gives the same one to a
    fresh `object()`: equal to anything, or to nothing, by the test's own design. An answer
    that depends on what it is compared with (on attributes the project may have built to
    pass it), or an `a` that answers itself, is judged as every asserted comparison is.
    """
    if _type(b) is cls and _own(cls):
        theirs, mine = _lookup(_type(a), "__eq__"), _lookup(cls, "__eq__")
        try:
            declined = theirs is None or theirs(a, b) is _declined
            verdict = mine(b, a) if declined else _declined
            if verdict is not _declined:
                verdict = _bool(verdict)
                if verdict == _says_true(lambda: mine(b, _object())):
                    return verdict
        except Exception:  # noqa: BLE001, S110 - judged below, where it raises again
            pass
    return _strict_eq(a, b)


def own_ne(cls, a, b, _own_eq=own_eq):  # noqa: ANN001, ANN201
    """`a != b` where the test built `b` itself: the negation of `own_eq`."""
    return not _own_eq(cls, a, b)


def _exception_info(e):  # noqa: ANN001, ANN202
    """The `ExceptionInfo` of `e` (pytest's), for the test's own use after the decision."""
    from _pytest._code import ExceptionInfo

    return ExceptionInfo.from_exception(e)


def raised(  # noqa: ANN201
    e,  # noqa: ANN001
    expected,  # noqa: ANN001
    match,  # noqa: ANN001
    _type=type,
    _mro=_mro,
    _tuple=tuple,
    _str=str,
    _assert=AssertionError,
    _info=_exception_info,
):
    """The `ExceptionInfo` of `e` if it is what `pytest.raises(expected, match=...)` awaits.

    None if it is not (the caller re-raises it). Decided by the exception's method
    resolution order, never by `__subclasscheck__` of a class of the code under test.
    """
    kinds = expected if _type(expected) is _tuple else (expected,)
    mro = _mro(_type(e))
    if not any(k in mro for k in kinds):
        return None
    if match is not None:
        import re

        text = _str(e)
        if not re.search(match, text):
            raise _assert(f"Regex pattern did not match.\n Regex: {match!r}\n Input: {text!r}")
    return _info(e)


def not_raised(expected, _assert=AssertionError):  # noqa: ANN001, ANN201
    """What `pytest.raises` says when nothing was raised."""
    raise _assert(f"DID NOT RAISE {expected}")


def call_raises(expected, func, args, kwargs, _raised=raised, _not_raised=not_raised):  # noqa: ANN001, ANN201
    """`pytest.raises(expected, func, *args, **kwargs)`."""
    try:
        func(*args, **kwargs)
    except BaseException as e:  # noqa: BLE001 - whatever it raised is judged by `raised`
        info = _raised(e, expected, None)
        if info is None:
            raise
        return info
    return _not_raised(expected)


def strict_len(  # noqa: ANN201
    x,  # noqa: ANN001
    _len=len,
    _type=type,
    _untrusted=_untrusted,
    _items=_items,
    _flag=_flag,
    _tname=_tname,
):
    """`len(x)` in canonical code: a workspace `__len__` must agree with iterating `x`."""
    n = _len(x)
    if _untrusted(x, "__len__"):
        items = _items(x)
        if items is not None and _len(items) != n:
            _flag(
                f"an object of type {_tname(_type(x))} says its length is {n} but iterating "
                f"it yields {_len(items)} elements",
                LYING,
            )
            return -1  # equal to no length a test expects
    return n


def len_call(f, x, _len=len, _strict_len=strict_len):  # noqa: ANN001, ANN201
    """`len(x)` written in canonical code: `strict_len` where `len` is the builtin.

    Only the test's own calls are judged: a `len` that canonical code hands to other code
    (`sorted(xs, key=len)`, `map(len, ...)`) is the builtin, so a library measuring its own
    objects is not judged; a name `len` the test module rebinds is called as it is.
    """
    if f is _len:
        return _strict_len(x)
    return f(x)


def strict_truth(  # noqa: ANN201
    x,  # noqa: ANN001
    _bool=bool,
    _len=len,
    _type=type,
    _untrusted=_untrusted,
    _lookup=_lookup,
    _flag=_flag,
    _tname=_tname,
    _strict_len=strict_len,
):
    """The truth of an asserted value, judged against the object's own witnesses.

    A workspace `__bool__` must agree with its `__len__`, and a truth that comes from a
    workspace `__len__` with iterating the object.
    """
    t = _bool(x)
    if t and _untrusted(x, "__bool__") and _lookup(_type(x), "__len__") is not None:
        try:
            empty = _len(x) == 0
        except Exception:  # noqa: BLE001 - a length it cannot give is not judged
            return t
        if empty:
            _flag(f"an object of type {_tname(_type(x))} is true but has length 0", LYING)
            return False
    if (
        t
        and _lookup(_type(x), "__bool__") is None
        and _untrusted(x, "__len__")
        and _strict_len(x) == -1  # its truth is its length, which iterating contradicts
    ):
        return False
    return t


def hide_param(f, _param=PARAM):  # noqa: ANN001, ANN201
    """`f` with a `__signature__` that leaves out `__swarm__`.

    hypothesis' `@given` takes positional strategies only for functions without
    keyword-only parameters; a library counting a callback's parameters counts the test's.
    The signature is read from `f` as it is when asked (`_LiveSignature`): a test that
    sets its function's `__annotations__` or defaults afterwards (toolz's
    `test_compose_metadata`) sees them.
    """
    import inspect

    try:
        live = _live_signature()(f)
        live.parameters  # noqa: B018 - it can be read (else the one made now, below)
        f.__signature__ = live
    except (TypeError, ValueError, AttributeError):
        try:
            sig = inspect.signature(f)
            f.__signature__ = sig.replace(
                parameters=[p for p in sig.parameters.values() if p.name != _param]
            )
        except (TypeError, ValueError, AttributeError):
            pass
    return f


@functools.cache
def _live_signature():  # noqa: ANN202
    """The class of live signatures, made on first use (`inspect` is imported late)."""
    import inspect

    from_function = inspect._signature_from_function

    class _LiveSignature(inspect.Signature):
        """The signature of a canonical function as it is now, without `__swarm__`."""

        __slots__ = ("_fn",)

        def __init__(self, fn):  # noqa: ANN001, ANN204
            self._fn = fn

        def _now(self, _param=PARAM):  # noqa: ANN001, ANN202
            sig = from_function(inspect.Signature, self._fn)
            return sig.replace(parameters=[p for p in sig.parameters.values() if p.name != _param])

        # What `inspect.Signature`'s own methods read.
        _parameters = property(lambda self: self._now().parameters)
        _return_annotation = property(lambda self: self._now().return_annotation)
        parameters = _parameters
        return_annotation = _return_annotation

        def replace(self, **changes):  # noqa: ANN003, ANN201
            return self._now().replace(**changes)

        def __reduce__(self):  # noqa: ANN204
            return self._now().__reduce__()

    return _LiveSignature


_CO_VARARGS, _CO_VARKEYWORDS = 0x04, 0x08
_CO_GENERATOR, _CO_COROUTINE, _CO_ASYNC_GENERATOR = 0x20, 0x80, 0x200


def _shell_template(code):  # noqa: ANN001, ANN202
    """The code of a function with `code`'s signature that calls `@swarm_body` with it."""
    n_pos = code.co_argcount
    n_kw = code.co_kwonlyargcount
    flags = code.co_flags
    names = list(code.co_varnames[: n_pos + n_kw])
    i = n_pos + n_kw
    star = code.co_varnames[i] if flags & _CO_VARARGS else None
    i += bool(flags & _CO_VARARGS)
    starstar = code.co_varnames[i] if flags & _CO_VARKEYWORDS else None
    pos, kw = names[:n_pos], names[n_pos:]
    params = list(pos)
    if code.co_posonlyargcount:
        params.insert(code.co_posonlyargcount, "/")
    if star:
        params.append(f"*{star}")
    elif kw:
        params.append("*")
    params += kw
    if starstar:
        params.append(f"**{starstar}")
    args = [*pos, *([f"*{star}"] if star else []), *(f"{k}={k}" for k in kw)]
    args += [f"**{starstar}"] if starstar else []
    call = f"__swarm_body__({', '.join(args)})"
    if flags & _CO_ASYNC_GENERATOR:
        head, body = "async def", f"async for __v in {call}:\n        yield __v"
    elif flags & _CO_COROUTINE:
        head, body = "async def", f"return await {call}"
    elif flags & _CO_GENERATOR:
        head, body = "def", f"return (yield from {call})"
    else:
        head, body = "def", f"return {call}"
    source = (
        "def __swarm_make__(__swarm_body__):\n"
        f"    {head} __swarm_shell__({', '.join(params)}):\n"
        "        __tracebackhide__ = True\n"
        f"        {body}\n"
        "    return __swarm_shell__\n"
    )
    outer = compile(source, code.co_filename, "exec", dont_inherit=True)
    make = next(c for c in outer.co_consts if type(c) is types.CodeType)
    inner = next(c for c in make.co_consts if type(c) is types.CodeType)
    return inner.replace(
        co_name=code.co_name,
        co_qualname=code.co_qualname,
        co_firstlineno=code.co_firstlineno,
        co_freevars=(SHELL_VAR,),
    )


def make_shell(  # noqa: ANN201
    body,  # noqa: ANN001
    _cache={},  # noqa: B006 - the shells made so far, by their body's code
    _type=type,
    _fn=types.FunctionType,
    _cell=types.CellType,
    _template=_shell_template,
    _audit=sys.audit,
    _event=SHELL_EVENT,
    _code_of=_code_of,
):
    """`body` behind a shell: a function of its name and signature that calls it.

    The shell's code holds the signature and nothing else of the body (no constant, no
    name the body reads), so code under test that reads a test's callback's code
    (`fn.__code__.co_varnames`, `co_argcount`) learns its parameters only. The body is
    in the shell's closure; the guard knows the shell (`SHELL_EVENT`).
    """
    if _type(body) is not _fn:
        return body
    code = _code_of(body)
    shell_code = _cache.get(code)
    if shell_code is None:
        shell_code = _template(code)
        _cache[code] = shell_code
        _audit(_event, shell_code, code)
    shell = _fn(shell_code, body.__globals__, body.__name__, body.__defaults__, (_cell(body),))
    shell.__kwdefaults__ = body.__kwdefaults__
    shell.__qualname__ = body.__qualname__
    shell.__module__ = body.__module__
    shell.__doc__ = body.__doc__
    shell.__annotations__ = body.__annotations__
    shell.__dict__.update(body.__dict__)
    return shell


HELPERS = (
    sys.audit,
    strict_eq,
    strict_ne,
    strict_in,
    strict_not_in,
    raised,
    not_raised,
    call_raises,
    strict_truth,
    hide_param,
    make_shell,
    len_call,
    handed_eq,
    handed_ne,
    own_eq,
    own_ne,
)
_OPS = {ast.Eq: EQ, ast.NotEq: NE, ast.In: IN, ast.NotIn: NOT_IN}
_HANDED = {EQ: HANDED_EQ, NE: HANDED_NE}
_OWN = {EQ: OWN_EQ, NE: OWN_NE}
#: functions that take the truth of what they are handed: a comparison handed to one of
#: these names stays judged, whatever the name is bound to
_TRUTH_TAKERS = frozenset({"bool", "all", "any", "not_", "truth"})


# ------------------------------------------------------------------------- compiling


def compile_canonical(source: bytes, path: str, config: object = None) -> types.CodeType:
    """Compile a canonical test module: pytest's assertion rewriting, then hardening."""
    from _pytest.assertion.rewrite import rewrite_asserts

    tree = ast.parse(source, filename=path)
    rewrite_asserts(tree, source, path, config)  # type: ignore[arg-type]
    harden(tree)
    return compile(tree, path, "exec", dont_inherit=True)


def harden(tree: ast.Module) -> None:
    """Apply the hardening described in the module docstring to `tree` (in place)."""
    package = __name__.rpartition(".")[0]
    prologue: list[ast.stmt] = [
        ast.Import([ast.alias(f"{package}.hardened", _RT)]),
        ast.Assign(
            [ast.Name("__builtins__", ast.Store())],
            ast.Attribute(ast.Name(_RT, ast.Load()), "BUILTINS", ast.Load()),
        ),
        ast.Assign(
            [ast.Name(_H, ast.Store())],
            ast.Attribute(ast.Name(_RT, ast.Load()), "HELPERS", ast.Load()),
        ),
    ]
    _Raises(_raises_names(tree)).visit(tree)
    at = _prologue_position(tree)
    ref = tree.body[at] if at < len(tree.body) else None
    for stmt in prologue:
        _locate(stmt, ref)
    tree.body[at:at] = prologue
    helpers = _Helpers(tree)
    lists = _statement_lists(tree)
    handed = _handed_comparisons(lists, helpers)
    own = _own_operands(lists, helpers)
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]  # (node, inside a function)
    while stack:
        node, in_fn = stack.pop()
        outer = in_fn
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            node.args.kwonlyargs.append(_locate(ast.arg(PARAM), node))  # type: ignore[arg-type]
            node.args.kw_defaults.append(_locate(ast.Name(_H, ast.Load()), node))  # type: ignore[arg-type]
            # Its signature without that parameter, on a shell of it (the innermost
            # decorators, at the def): its code shows the signature, nothing of the body.
            node.decorator_list.append(_locate(_helper(SIGNATURE, in_fn), node))  # type: ignore[arg-type]
            node.decorator_list.append(_locate(_helper(SHELL, in_fn), node))  # type: ignore[arg-type]
            # Every function: a test's function need not be named `test*` (a metaclass
            # or a helper makes it); the guard takes the marker only from the test's own.
            _mark_exits(node)
            in_fn = True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Compare):
            _strict(node, in_fn, handed.get(id(node)), own.get(id(node)))
        if isinstance(node, ast.If):
            _strict_truth(node, in_fn)
        if isinstance(node, ast.Call):
            _strict_len(node, in_fn)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            # Its decorators, defaults and annotations run where it is defined.
            body = set(map(id, node.body))
            for child in ast.iter_child_nodes(node):
                stack.append((child, in_fn if id(child) in body else outer))
            continue
        for child in ast.iter_child_nodes(node):
            stack.append((child, in_fn))
    _Lambdas().visit(tree)


class _Lambdas(ast.NodeTransformer):
    """`lambda ...: x` -> `make_shell(lambda ...: x)`: a callback's code shows no more."""

    def __init__(self) -> None:
        self.in_fn = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        # Its decorators and defaults run where it is defined; its body, inside it.
        for field in ("decorator_list",):
            setattr(node, field, [self.visit(d) for d in getattr(node, field)])
        node.args = self.visit(node.args)
        self.in_fn += 1
        node.body = [self.visit(b) for b in node.body]
        self.in_fn -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        call = ast.Call(_helper(SHELL, self.in_fn > 0), [node], [])
        _locate_missing(call, node)
        return call


def _locate(new: ast.AST, ref: ast.AST | None) -> ast.AST:
    """Give `new` and its subtree the position of `ref` (line 1 without one)."""
    line = getattr(ref, "lineno", 1) or 1
    col = getattr(ref, "col_offset", 0) or 0
    for n in ast.walk(new):
        if "lineno" in n._attributes:
            n.lineno, n.col_offset = line, col  # type: ignore[attr-defined]
            n.end_lineno, n.end_col_offset = line, col  # type: ignore[attr-defined]
    return new


def _raises_names(tree: ast.Module) -> frozenset[str]:
    """The local names that mean pytest's `raises` (`from pytest import raises`)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "pytest":
            names.update(a.asname or a.name for a in node.names if a.name == "raises")
    return frozenset(names)


class _Raises(ast.NodeTransformer):
    """`with pytest.raises(E, match=m) as info: body` -> try/except decided by `raised`.

    `pytest.raises` itself is then never called, so replacing it (or pytest's internals)
    cannot make a block that raised nothing, or the wrong thing, pass.
    """

    def __init__(self, local_names: frozenset[str]):
        self.local_names = local_names
        self.in_fn = 0
        self.n = 0

    def _is_raises(self, node: ast.expr) -> bool:
        if not isinstance(node, ast.Call):
            return False
        f = node.func
        return (
            isinstance(f, ast.Attribute)
            and f.attr == "raises"
            and isinstance(f.value, ast.Name)
            and f.value.id == "pytest"
        ) or (isinstance(f, ast.Name) and f.id in self.local_names)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.in_fn += 1
        self.generic_visit(node)
        self.in_fn -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not self._is_raises(node) or len(node.args) < 2 or not self.in_fn:
            return node
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            return node
        expected, func, *rest = node.args
        args = ast.Tuple(rest, ast.Load())
        kwargs = ast.Dict(
            [ast.Constant(k.arg) for k in node.keywords], [k.value for k in node.keywords]
        )
        call = ast.Call(_helper(CALL_RAISES, True), [expected, func, args, kwargs], [])
        return _locate(call, node)

    def visit_With(self, node: ast.With) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if (
            len(node.items) != 1
            or not self.in_fn
            or not self._is_raises(node.items[0].context_expr)
        ):
            return node
        call = node.items[0].context_expr
        assert isinstance(call, ast.Call)
        keywords = {k.arg: k.value for k in call.keywords}
        expected = call.args[0] if call.args else keywords.pop("expected_exception", None)
        if expected is None or len(call.args) > 1 or set(keywords) - {"match"}:
            return node  # a form we leave to pytest
        self.n += 1
        x, m, ok, e = (f"@swarm_{k}{self.n}" for k in ("x", "m", "ok", "e"))

        def name(n: str, store: bool = False) -> ast.Name:
            return ast.Name(n, ast.Store() if store else ast.Load())

        handler = ast.ExceptHandler(
            ast.Name("BaseException", ast.Load()),
            e,
            [
                ast.Assign(
                    [name(ok, True)],
                    ast.Call(_helper(RAISED, True), [name(e), name(x), name(m)], []),
                ),
                ast.If(ast.Compare(name(ok), [ast.Is()], [ast.Constant(None)]), [ast.Raise()], []),
            ],
        )
        out: list[ast.stmt] = [
            ast.Assign([name(x, True)], expected),
            ast.Assign([name(m, True)], keywords.get("match", ast.Constant(None))),
            ast.Assign([name(ok, True)], ast.Constant(None)),
            ast.Try(node.body, [handler], [], []),
            ast.If(
                ast.Compare(name(ok), [ast.Is()], [ast.Constant(None)]),
                [ast.Expr(ast.Call(_helper(NOT_RAISED, True), [name(x)], []))],
                [],
            ),
        ]
        target = node.items[0].optional_vars
        if target is not None:
            out.append(ast.Assign([target], name(ok)))
        for stmt in out:
            _locate_missing(stmt, node)
        return out


def _locate_missing(new: ast.AST, ref: ast.AST) -> None:
    """Give the nodes of `new` that have no position the position of `ref`."""
    line, col = getattr(ref, "lineno", 1), getattr(ref, "col_offset", 0)
    for n in ast.walk(new):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            n.lineno, n.col_offset = line, col  # type: ignore[attr-defined]
            n.end_lineno, n.end_col_offset = line, col  # type: ignore[attr-defined]


def _prologue_position(tree: ast.Module) -> int:
    """After the docstring, `from __future__` imports and pytest's own imports."""
    at = 0
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Import) and any(
            (a.asname or "").startswith("@py") for a in stmt.names
        ):
            at = i + 1
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            at = max(at, i + 1)
        elif i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            at = max(at, 1)
    return at


def _helper(index: int, in_fn: bool) -> ast.expr:
    source = ast.Name(PARAM if in_fn else _H, ast.Load())
    return ast.Subscript(source, ast.Constant(index), ast.Load())


def _strict(
    node: ast.Assign,
    in_fn: bool,
    handed_to: str | None = None,
    own: tuple[str, bool] | None = None,
) -> None:
    """`@py_assertN = a <op> b` (what pytest emits per comparison) -> a strict helper call.

    `handed_to`: the name of the function the test hands the result to
    (`_handed_comparisons`): `==` and `!=` then go to `handed_eq`/`handed_ne` with it.
    `own`: the test's own class one side was built from, and whether that is the left
    (`_own_operands`): `==` and `!=` then go to `own_eq`/`own_ne` with it, that side last.
    """
    cmp = node.value
    assert isinstance(cmp, ast.Compare)
    targets = node.targets
    if not (
        len(targets) == 1
        and isinstance(targets[0], ast.Name)
        and targets[0].id.startswith("@py_assert")
        and len(cmp.ops) == 1
        and type(cmp.ops[0]) in _OPS
    ):
        return
    index = _OPS[type(cmp.ops[0])]
    args = [cmp.left, cmp.comparators[0]]
    if handed_to is not None and index in _HANDED:
        index = _HANDED[index]
        func = ast.Name(handed_to, ast.Load())
        _locate(func, cmp)
        args.insert(0, func)
    elif own is not None and index in _OWN:
        index = _OWN[index]
        cls, left = own
        if left:
            args.reverse()
        args.insert(0, _locate(ast.Name(cls, ast.Load()), cmp))  # type: ignore[arg-type]
    call = _locate(ast.Call(_helper(index, in_fn), [], []), cmp)
    assert isinstance(call, ast.Call)
    call.args = args
    node.value = call


def _compare_temp(stmt: ast.stmt) -> str | None:
    """The name of `@py_assertN = a <op> b` (one pytest comparison), else None."""
    if (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Compare)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and stmt.targets[0].id.startswith("@py_assert")
    ):
        return stmt.targets[0].id
    return None


def _is_failure_branch(node: ast.AST) -> bool:
    """True for the failure branch of one rewritten assert.

    That is pytest's `if not <asserted>: ... raise AssertionError(...)`.
    """
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.UnaryOp)
        and isinstance(node.test.op, ast.Not)
        and bool(node.body)
        and isinstance(node.body[-1], ast.Raise)
    )


#: one use of a name: (the function it is handed to, by name, and where: its position or
#: keyword, None where a starred argument comes before it), or (None, None) for any other
Use = tuple[str | None, int | str | None]


def _uses(node: ast.AST, name: str, out: list[Use]) -> None:
    """Append one entry per load of `name` in `node`, outside failure messages."""
    if _is_failure_branch(node):
        assert isinstance(node, ast.If)
        _uses(node.test, name, out)  # the assert's own truth; its message is not a use
        return
    if isinstance(node, ast.Call):
        func = node.func.id if isinstance(node.func, ast.Name) else None
        if func in _TRUTH_TAKERS:
            func = None
        _uses(node.func, name, out)
        starred = False
        for i, arg in enumerate(node.args):
            starred = starred or isinstance(arg, ast.Starred)
            if isinstance(arg, ast.Name) and arg.id == name:
                out.append((func, None if starred else i))
            else:
                _uses(arg, name, out)
        for k in node.keywords:
            if isinstance(k.value, ast.Name) and k.value.id == name:
                out.append((func, k.arg))
            else:
                _uses(k.value, name, out)
        return
    if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
        out.append((None, None))
        return
    for child in ast.iter_child_nodes(node):
        _uses(child, name, out)


def _bound_names(node: ast.AST) -> list[str]:
    """Every name `node` (a function's body and arguments, or a whole module) binds."""
    out: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.append(n.id)
        elif isinstance(n, ast.arg):
            out.append(n.arg)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append(n.name)
        elif isinstance(n, ast.alias):
            out.append((n.asname or n.name).partition(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.append(n.name)
        elif isinstance(n, ast.Global | ast.Nonlocal):
            out.extend(n.names)
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            out.append(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.append(n.rest)
    return out


_SUSPENDS = (ast.Yield, ast.YieldFrom, ast.Await)


class _Helpers:
    """The tests' own helpers that only pass a comparison on, by name.

    glom's `as_type(M == 'abc', list)`, whose body is `return And(sub_schema, Auto(typ))`:
    the comparison reaches `And`, the project's, and nothing else. `final(h, where)` is the
    name of the function that an argument handed to helper `h` at `where` reaches, when
    that is certain from the source: `h` is the module's one binding of its name, a plain
    function (no decorator, not a generator or coroutine), whose parameter there is used
    once, as an argument of a call by name, and never rebound; and that name is bound
    nowhere but at the module's top level, so it means the same at the test's call as in
    the helper. Otherwise None: the comparison is judged where the test hands it over.
    """

    def __init__(self, tree: ast.Module) -> None:
        top = {id(n) for n in tree.body}
        counts: dict[str, int] = {}
        self.local: set[str] = set()  # names some function or class binds
        for name in _bound_names(tree):
            counts[name] = counts.get(name, 0) + 1
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                inner = _bound_names(n)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    inner.remove(n.name)  # its own name is bound where it is defined
                self.local.update(inner)
            if isinstance(n, ast.comprehension):
                self.local.update(_bound_names(n.target))
        self.defs: dict[str, ast.FunctionDef] = {}
        for n in ast.walk(tree):
            if (
                isinstance(n, ast.FunctionDef)
                and counts.get(n.name) == 1
                and not n.decorator_list
                and not any(isinstance(x, _SUSPENDS) for x in ast.walk(n))
            ):
                self.defs[n.name] = n
        self.nested = {n.name for n in self.defs.values() if id(n) not in top}
        #: the module's own classes, each its name's one binding
        self.classes = {
            n.name
            for n in tree.body
            if isinstance(n, ast.ClassDef) and counts.get(n.name) == 1 and n.name not in self.local
        }

    def _param(self, fn: ast.FunctionDef, where: int | str | None) -> str | None:
        a = fn.args
        positional = [*a.posonlyargs, *a.args]
        if isinstance(where, int):
            return positional[where].arg if where < len(positional) else None
        if isinstance(where, str):
            names = [x.arg for x in [*a.args, *a.kwonlyargs]]
            return where if where in names else None
        return None

    def final(self, name: str, where: int | str | None, depth: int = 0) -> str | None:
        fn = self.defs.get(name)
        if fn is None or depth >= 4:
            return None
        param = self._param(fn, where)
        if param is None or _bound_names(fn).count(param) != 1:
            return None  # not a parameter there, or rebound in the body
        uses: list[Use] = []
        for stmt in fn.body:
            _uses(stmt, param, uses)
        if len(uses) != 1 or uses[0][0] is None:
            return None
        func, at = uses[0]
        assert func is not None
        if func in self.defs:
            return self.final(func, at, depth + 1)
        if func in self.local or func in self.nested:
            return None  # the name may mean something else at the test's call
        return func


def _assigns(stmt: ast.stmt, name: str) -> bool:
    return isinstance(stmt, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in stmt.targets
    )


def _handed_comparisons(lists: list[list[ast.stmt]], helpers: _Helpers) -> dict[int, str]:
    """The comparisons whose one use is as an argument of a call by name.

    For `assert glom(target, M == 1) == 1`, pytest emits `@py_assertN = M == 1` and hands
    that name to `glom`. Returns the id of each such statement -> the function's name; for
    a helper of the tests' own that only passes it on (`_Helpers`), the name of the
    function it reaches. Every other comparison (the asserted one, an operand of another)
    is judged as before.
    """
    out: dict[int, str] = {}
    for stmts in lists:
        for i, stmt in enumerate(stmts):
            name = _compare_temp(stmt)
            if name is None:
                continue
            uses: list[Use] = []
            for later in stmts[i + 1 :]:
                if _assigns(later, name):
                    break
                _uses(later, name, uses)
            if len(uses) == 1 and uses[0][0] is not None:
                func, at = uses[0]
                assert func is not None
                out[id(stmt)] = helpers.final(func, at) or func
    return out


def _own_operands(lists: list[list[ast.stmt]], helpers: _Helpers) -> dict[int, tuple[str, bool]]:
    """The comparisons one side of which the test built itself from one of its classes.

    For `assert composed == AlwaysEquals()`, pytest emits `@py_assert3 = AlwaysEquals()`
    and then `@py_assert1 = composed == @py_assert3`. Returns the id of each such
    comparison -> (the class's name, whether it is the left operand).
    """
    out: dict[int, tuple[str, bool]] = {}
    for stmts in lists:
        built: dict[str, str] = {}  # temp -> the class it was built from, in this list
        for stmt in stmts:
            name = _compare_temp(stmt)
            if name is not None:
                cmp = stmt.value  # type: ignore[attr-defined]
                for left, operand in ((True, cmp.left), (False, cmp.comparators[0])):
                    if isinstance(operand, ast.Name) and operand.id in built:
                        out[id(stmt)] = (built[operand.id], left)
                        break
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
                if isinstance(target, ast.Name):
                    built.pop(target.id, None)
                    if (
                        target.id.startswith("@py_assert")
                        and isinstance(value, ast.Call)
                        and isinstance(value.func, ast.Name)
                        and value.func.id in helpers.classes
                    ):
                        built[target.id] = value.func.id
    return out


def _statement_lists(tree: ast.Module) -> list[list[ast.stmt]]:
    out = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                out.append(stmts)
    return out


def _strict_truth(node: ast.If, in_fn: bool) -> None:
    """Route pytest's check of an assert's value through `strict_truth`.

    `if not <asserted>: ... raise AssertionError(...)` -> `if not strict_truth(<asserted>)`.
    """
    test, body = node.test, node.body
    if not (
        isinstance(test, ast.UnaryOp)
        and isinstance(test.op, ast.Not)
        and body
        and isinstance(body[-1], ast.Raise)
        and isinstance(body[-1].exc, ast.Call)
        and isinstance(body[-1].exc.func, ast.Name)
        and body[-1].exc.func.id == "AssertionError"
    ):
        return
    call = _locate(ast.Call(_helper(TRUTH, in_fn), [], []), test)
    assert isinstance(call, ast.Call)
    call.args = [test.operand]
    test.operand = call


def _strict_len(node: ast.Call, in_fn: bool) -> None:
    """`len(x)` -> `len_call(len, x)`: the test's own length checks, and no other."""
    if not (
        isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
        and not isinstance(node.args[0], ast.Starred)
        and not node.keywords
    ):
        return
    node.args = [node.func, node.args[0]]
    node.func = _locate(_helper(LEN, in_fn), node.func)  # type: ignore[assignment]


def _done_call(ref: ast.AST) -> ast.stmt:
    call = ast.Expr(ast.Call(_helper(DONE, True), [ast.Constant(DONE_EVENT)], []))
    return _locate(call, ref)  # type: ignore[return-value]


def _mark_exits(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Call the completion marker at the end of `fn`'s body and before each of its returns."""
    stack: list[list[ast.stmt]] = [fn.body]
    while stack:
        body = stack.pop()
        i = 0
        while i < len(body):
            stmt = body[i]
            if isinstance(stmt, ast.Return):
                if stmt.value is None:
                    body.insert(i, _done_call(stmt))
                else:
                    tmp = ast.Name("@swarm_rv", ast.Store())
                    assign = ast.Assign([tmp], stmt.value)
                    _locate_missing(assign, stmt)
                    body[i:i] = [assign, _done_call(stmt)]
                    stmt.value = _locate(ast.Name("@swarm_rv", ast.Load()), stmt)  # type: ignore[assignment]
                    i += 1
                i += 2
                continue
            if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for name in ("body", "orelse", "finalbody"):
                    inner = getattr(stmt, name, None)
                    if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                        stack.append(inner)
                for handler in getattr(stmt, "handlers", ()):
                    stack.append(handler.body)
                for case in getattr(stmt, "cases", ()):
                    stack.append(case.body)
            i += 1
    fn.body.append(_done_call(fn.body[-1]))
