# table.py - the one table of OpenSHMEM C types and routine families (1.5, the deprecated routines programs still
# call, and the 1.6 additions); api/gen.py reads it to emit src/api/*.c and include/gshmem/shmem_api.h.
#
# Source of truth: the OpenSHMEM specification's LaTeX synopses and type tables (openshmem-org/specification,
# tags v1.5 and v1.6). Signatures follow 1.6 where it differs (const cmp_values in the *_vector waits/tests).
#
# A family's status says who provides it:
#   generated - gen.py emits declarations, definitions (one-line forwards to shmemi_*), C11 generics, C++ overloads
#   core      - untyped routines written by hand in include/shmem.h and src/core (listed so the table is complete)
#
# Templates: TYPE is the C type of the element. In `call`, {ctx} is ctx or SHMEM_CTX_DEFAULT, {fn} the public name as
# a string literal, {nbytes}/{esize} the byte count / element size of the form, {dtype} the shmemi_dtype constant,
# {value}/{cond} the operand converted to its zero-extended bits (AMOs). A `call` ending in ';' is a whole body.

from dataclasses import dataclass, field
from typing import Optional

GENERATED, CORE = "generated", "core"
STATUSES = (GENERATED, CORE)


@dataclass(frozen=True)
class Type:
    c: str  # C type
    name: str  # TYPENAME in routine names
    dtype: Optional[str]  # enum shmemi_dtype suffix (SHMEMI_DT_<dtype>)
    kind: str  # sint, uint, char, real, complex: C++/C11 overload sets may not hold two typedefs of one kind
    typedef: bool = False  # a typedef of a fundamental type (int32_t, size_t, ...), not a distinct type
    bits: Optional[str] = None  # AMO operand: same-width unsigned type, or "f"/"d" for float/double bit moves


TYPES = {
    t.name: t
    for t in (
        Type("float", "float", "FLOAT", "real", bits="f"),
        Type("double", "double", "DOUBLE", "real", bits="d"),
        Type("long double", "longdouble", "LONGDOUBLE", "real"),
        Type("char", "char", "CHAR", "char"),
        Type("signed char", "schar", "SCHAR", "sint"),
        Type("short", "short", "SHORT", "sint", bits="unsigned short"),
        Type("int", "int", "INT", "sint", bits="unsigned int"),
        Type("long", "long", "LONG", "sint", bits="unsigned long"),
        Type("long long", "longlong", "LONGLONG", "sint", bits="unsigned long long"),
        Type("unsigned char", "uchar", "UCHAR", "uint"),
        Type("unsigned short", "ushort", "USHORT", "uint", bits="unsigned short"),
        Type("unsigned int", "uint", "UINT", "uint", bits="unsigned int"),
        Type("unsigned long", "ulong", "ULONG", "uint", bits="unsigned long"),
        Type("unsigned long long", "ulonglong", "ULONGLONG", "uint", bits="unsigned long long"),
        Type("int8_t", "int8", "INT8", "sint", True),
        Type("int16_t", "int16", "INT16", "sint", True),
        Type("int32_t", "int32", "INT32", "sint", True, bits="uint32_t"),
        Type("int64_t", "int64", "INT64", "sint", True, bits="uint64_t"),
        Type("uint8_t", "uint8", "UINT8", "uint", True),
        Type("uint16_t", "uint16", "UINT16", "uint", True),
        Type("uint32_t", "uint32", "UINT32", "uint", True, bits="uint32_t"),
        Type("uint64_t", "uint64", "UINT64", "uint", True, bits="uint64_t"),
        Type("size_t", "size", "SIZE", "uint", True, bits="size_t"),
        Type("ptrdiff_t", "ptrdiff", "PTRDIFF", "sint", True, bits="size_t"),  # same width as size_t on every ABI
        Type("gshmem_complexf", "complexf", "COMPLEXF", "complex"),
        Type("gshmem_complexd", "complexd", "COMPLEXD", "complex"),
    )
}

_INTS_SIZED = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]

# The spec's type tables (in the spec's row order), and the short lists its deprecated synopses spell out.
TYPE_TABLES = {
    # Standard RMA Types and Names (stdrmatypes)
    "rma": ["float", "double", "longdouble", "char", "schar", "short", "int", "long", "longlong", "uchar", "ushort",
            "uint", "ulong", "ulonglong"] + _INTS_SIZED + ["size", "ptrdiff"],
    # ... split for the device routines: long double is the GPU compiler's there (a double under nvcc and hipcc)
    "rma_dev": ["float", "double", "char", "schar", "short", "int", "long", "longlong", "uchar", "ushort", "uint",
                "ulong", "ulonglong"] + _INTS_SIZED + ["size", "ptrdiff"],
    "rma_dev_ld": ["longdouble"],
    # Standard AMO Types and Names (stdamotypes)
    "amo_std": ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64", "size",
                "ptrdiff"],
    # Extended AMO Types and Names (extamotypes)
    "amo_ext": ["float", "double", "int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64", "uint32",
                "uint64", "size", "ptrdiff"],
    # Bitwise AMO Types and Names (bitamotypes)
    "amo_bit": ["uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64"],
    # Point-to-Point Synchronization Types and Names (p2psynctypes; the table itself is deprecated since 1.5)
    "p2p": ["short", "int", "long", "longlong", "ushort", "uint", "ulong", "ulonglong", "int32", "int64", "uint32",
            "uint64", "size", "ptrdiff"],
    # deprecated synopses: "TYPE is one of {...}"
    # The spec names int, long, long long (and float, double for fetch/set/swap); like Sandia OpenSHMEM we also
    # accept the other standard (extended) AMO types, which programs written against SOS call.
    "dep_amo": ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64", "size",
                "ptrdiff"],
    "dep_amo_ext": ["float", "double", "int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
                    "uint32", "uint64", "size", "ptrdiff"],
    "dep_p2p_short": ["short", "ushort"],  # wait_until/test on short types, deprecated in 1.5
    "dep_wait": ["short", "int", "long", "longlong"],
    # Reduction Types for Team-Based Reductions (teamreducetypes), split by supported operation
    "reduce_bit": ["uchar", "ushort", "uint", "ulong", "ulonglong"] + _INTS_SIZED + ["size"],
    "reduce_minmax": ["char", "schar", "short", "int", "long", "longlong", "ptrdiff", "uchar", "ushort", "uint",
                      "ulong", "ulonglong"] + _INTS_SIZED + ["size", "float", "double", "longdouble"],
    "reduce_arith": ["char", "schar", "short", "int", "long", "longlong", "ptrdiff", "uchar", "ushort", "uint",
                     "ulong", "ulonglong"] + _INTS_SIZED + ["size", "float", "double", "longdouble", "complexd",
                                                          "complexf"],
    # ... of gshmem's device reductions (shmemgx_): no long double, no complex
    "reduce_dev_arith": ["char", "schar", "short", "int", "long", "longlong", "ptrdiff", "uchar", "ushort", "uint",
                         "ulong", "ulonglong"] + _INTS_SIZED + ["size", "float", "double"],
    # Reduction Types for Active-Set-Based Reductions (asetreducetypes), deprecated *_to_all
    "aset_bit": ["short", "int", "long", "longlong"],
    "aset_minmax": ["short", "int", "long", "longlong", "float", "double", "longdouble"],
    "aset_arith": ["short", "int", "long", "longlong", "float", "double", "longdouble", "complexd", "complexf"],
}

SIZES = (8, 16, 32, 64, 128)  # putSIZE, getSIZE, ...: element size in bits


@dataclass(frozen=True)
class Family:
    key: str  # unique id; also the routine name stem: shmem_<TYPENAME>_<name> / shmem_<name>
    group: str  # output file for generated families (rma, amo, signal, p2p); a section name otherwise
    status: str
    ret: str  # return type (may use TYPE)
    params: str  # parameters without ctx (may use TYPE)
    call: Optional[str] = None  # forwarding expression (generated families)
    name: Optional[str] = None  # routine stem when it differs from key
    types: Optional[str] = None  # TYPE_TABLES key: typed family shmem_<TYPENAME>_<name>; None: untyped shmem_<name>
    dep_types: Optional[str] = None  # extra types whose forms are deprecated (TYPE_TABLES key)
    sized: Optional[str] = None  # sized stem with {SIZE}, e.g. "put{SIZE}_nbi"
    sizes: tuple = SIZES
    mem: Optional[str] = None  # byte stem, e.g. "putmem_nbi"
    ctx: bool = False  # has shmem_ctx_ variants
    generic: bool = False  # C11 _Generic / C++ overloads named shmem_<name> (typed families)
    generic_arg: int = 0  # which parameter (without ctx) selects the type
    amo_ret: bool = False  # the call returns operand bits to convert back to TYPE
    spec: str = "1.5"  # first of 1.5/1.6 defining this form ("1.3": removed before 1.5)
    deprecated: Optional[str] = None  # spec version that deprecated it
    c11_only: bool = False  # the spec defines only the C11 generic name (no typed C names)
    prefix: str = "shmem_"  # "" for the pre-1.2 names without it (start_pes, shmalloc, ...)

    @property
    def stem(self):
        return self.name or self.key


F = Family
_RMA2 = "TYPE *dest, const TYPE *source, size_t nelems, int pe"
_STRIDED = "TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe"
_BLOCKED = "TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, int pe"
_SIGNAL = "TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe"
_AMO = "shmemi_amo({ctx}, SHMEMI_AMO_%s, %s, %s, %s, sizeof(TYPE), pe, {fn})"
_AMO_NBI = "shmemi_amo_nbi({ctx}, SHMEMI_AMO_%s, fetch, %s, %s, %s, sizeof(TYPE), pe, {fn})"
_SET1 = "TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value"
_SETV = "TYPE *ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values"
_SOME1 = "TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, TYPE cmp_value"
_SOMEV = "TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp, const TYPE *cmp_values"
_WS = "shmemi_wait_set(SHMEMI_WAIT_%s, %d, ivars, nelems, status, %s, cmp, %s, %d, {dtype}, {fn})"
_ASET = "int PE_start, int logPE_stride, int PE_size, long *pSync"


def _target(params):
    # shmemi_amo takes a plain void *: the fetch forms' source is const only in the public signature
    return "(void *)source" if "const TYPE *source" in params else "dest"


def _amo(key, op, types, ret_type, params, value="0", cond="0", dep=None):
    fetching = ret_type == "TYPE"
    return F(key, "amo", GENERATED, ret_type, params, _AMO % (op, _target(params), value, cond), types=types,
             ctx=dep is None, generic=True, amo_ret=fetching, deprecated=dep)


def _amo_nbi(key, op, types, params, value="0", cond="0"):
    return F(key, "amo", GENERATED, "void", params, _AMO_NBI % (op, _target(params), value, cond), types=types, ctx=True,
             generic=True)


def _wait_set(key, ret, params, mode, block, some, vec):
    call = _WS % (mode, block, "indices" if some else "NULL", "cmp_values" if vec else "&cmp_value", vec)
    if ret == "int":
        call = "(int)" + call
    # short/unsigned short forms: deprecated, as for wait_until/test (Sandia OpenSHMEM accepts them here too)
    return F(key, "p2p", GENERATED, ret, params, call, types="amo_std", dep_types="dep_p2p_short", generic=True)


def _reduce(op, types, aset_types):
    return [
        F(op + "_reduce", "coll", GENERATED, "int", "shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce",
          "shmemi_reduce(team, SHMEMI_OP_%s, {dtype}, dest, source, nreduce, {fn})" % op.upper(), types=types,
          generic=True, generic_arg=1),
        F(op + "_to_all", "coll", GENERATED, "void", "TYPE *dest, const TYPE *source, int nreduce, " + _ASET.replace(
            "long *pSync", "TYPE *pWrk, long *pSync"),
          "shmemi_to_all(SHMEMI_OP_%s, {dtype}, dest, source, nreduce, PE_start, logPE_stride, PE_size, pWrk, pSync, "
          "{fn})" % op.upper(), types=aset_types, deprecated="1.5"),
    ]


def _coll(key, params, call, aset_params, aset_call, **kw):
    """A team-based collective (typed, mem) and its deprecated active-set form (sized 32/64)."""
    return [
        F(key, "coll", GENERATED, "int", "shmem_team_t team, " + params, call, types="rma", mem=key + "mem",
          generic=True, generic_arg=1, **kw),
        F(key + ".aset", "coll", GENERATED, "void", aset_params + ", " + _ASET, aset_call, name=key,
          sized=key + "{SIZE}", sizes=(32, 64), deprecated="1.5"),
    ]


_ASET_ARGS = "PE_start, logPE_stride, PE_size, pSync, {fn})"

FAMILIES = [
    # ---------------- RMA ----------------
    F("put", "rma", GENERATED, "void", _RMA2, "shmemi_put({ctx}, dest, source, {nbytes}, pe, {fn})", types="rma",
      sized="put{SIZE}", mem="putmem", ctx=True, generic=True),
    F("get", "rma", GENERATED, "void", _RMA2, "shmemi_get({ctx}, dest, source, {nbytes}, pe, {fn})", types="rma",
      sized="get{SIZE}", mem="getmem", ctx=True, generic=True),
    F("p", "rma", GENERATED, "void", "TYPE *dest, TYPE value, int pe",
      "shmemi_p({ctx}, dest, &value, sizeof(TYPE), pe, {fn})", types="rma", ctx=True, generic=True),
    F("g", "rma", GENERATED, "TYPE", "const TYPE *source, int pe",
      "TYPE v; shmemi_g({ctx}, &v, source, sizeof v, pe, {fn}); return v;", types="rma", ctx=True, generic=True),
    F("iput", "rma", GENERATED, "void", _STRIDED,
      "shmemi_iput({ctx}, dest, source, dst, sst, nelems, {esize}, pe, {fn})", types="rma", sized="iput{SIZE}",
      ctx=True, generic=True),
    F("iget", "rma", GENERATED, "void", _STRIDED,
      "shmemi_iget({ctx}, dest, source, dst, sst, nelems, {esize}, pe, {fn})", types="rma", sized="iget{SIZE}",
      ctx=True, generic=True),
    F("ibput", "rma", GENERATED, "void", _BLOCKED,
      "shmemi_ibput({ctx}, dest, source, dst, sst, bsize, nblocks, {esize}, pe, {fn})", types="rma",
      sized="ibput{SIZE}", ctx=True, generic=True, spec="1.6"),
    F("ibget", "rma", GENERATED, "void", _BLOCKED,
      "shmemi_ibget({ctx}, dest, source, dst, sst, bsize, nblocks, {esize}, pe, {fn})", types="rma",
      sized="ibget{SIZE}", ctx=True, generic=True, spec="1.6"),
    F("put_nbi", "rma", GENERATED, "void", _RMA2, "shmemi_put_nbi({ctx}, dest, source, {nbytes}, pe, {fn})",
      types="rma", sized="put{SIZE}_nbi", mem="putmem_nbi", ctx=True, generic=True),
    F("get_nbi", "rma", GENERATED, "void", _RMA2, "shmemi_get_nbi({ctx}, dest, source, {nbytes}, pe, {fn})",
      types="rma", sized="get{SIZE}_nbi", mem="getmem_nbi", ctx=True, generic=True),
    # ---------------- AMO ----------------
    _amo("atomic_fetch", "FETCH", "amo_ext", "TYPE", "const TYPE *source, int pe"),
    _amo("atomic_set", "SET", "amo_ext", "void", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_swap", "SWAP", "amo_ext", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_compare_swap", "CSWAP", "amo_std", "TYPE", "TYPE *dest, TYPE cond, TYPE value, int pe", "{value}",
         "{cond}"),
    _amo("atomic_fetch_inc", "FETCH_INC", "amo_std", "TYPE", "TYPE *dest, int pe"),
    _amo("atomic_inc", "INC", "amo_std", "void", "TYPE *dest, int pe"),
    _amo("atomic_fetch_add", "FETCH_ADD", "amo_std", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_add", "ADD", "amo_std", "void", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_fetch_and", "FETCH_AND", "amo_bit", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_and", "AND", "amo_bit", "void", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_fetch_or", "FETCH_OR", "amo_bit", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_or", "OR", "amo_bit", "void", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_fetch_xor", "FETCH_XOR", "amo_bit", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}"),
    _amo("atomic_xor", "XOR", "amo_bit", "void", "TYPE *dest, TYPE value, int pe", "{value}"),
    # non-blocking fetching AMOs: the fetched value lands in *fetch at completion (quiet)
    _amo_nbi("atomic_fetch_nbi", "FETCH", "amo_ext", "TYPE *fetch, const TYPE *source, int pe"),
    _amo_nbi("atomic_compare_swap_nbi", "CSWAP", "amo_std", "TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe",
             "{value}", "{cond}"),
    _amo_nbi("atomic_swap_nbi", "SWAP", "amo_ext", "TYPE *fetch, TYPE *dest, TYPE value, int pe", "{value}"),
    _amo_nbi("atomic_fetch_inc_nbi", "FETCH_INC", "amo_std", "TYPE *fetch, TYPE *dest, int pe"),
    _amo_nbi("atomic_fetch_add_nbi", "FETCH_ADD", "amo_std", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
             "{value}"),
    _amo_nbi("atomic_fetch_and_nbi", "FETCH_AND", "amo_bit", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
             "{value}"),
    _amo_nbi("atomic_fetch_or_nbi", "FETCH_OR", "amo_bit", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
             "{value}"),
    _amo_nbi("atomic_fetch_xor_nbi", "FETCH_XOR", "amo_bit", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
             "{value}"),
    # deprecated (1.4) pre-"atomic_" names: no ctx forms
    _amo("fetch", "FETCH", "dep_amo_ext", "TYPE", "const TYPE *source, int pe", dep="1.4"),
    _amo("set", "SET", "dep_amo_ext", "void", "TYPE *dest, TYPE value, int pe", "{value}", dep="1.4"),
    _amo("swap", "SWAP", "dep_amo_ext", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}", dep="1.4"),
    _amo("cswap", "CSWAP", "dep_amo", "TYPE", "TYPE *dest, TYPE cond, TYPE value, int pe", "{value}", "{cond}",
         dep="1.4"),
    _amo("finc", "FETCH_INC", "dep_amo", "TYPE", "TYPE *dest, int pe", dep="1.4"),
    _amo("inc", "INC", "dep_amo", "void", "TYPE *dest, int pe", dep="1.4"),
    _amo("fadd", "FETCH_ADD", "dep_amo", "TYPE", "TYPE *dest, TYPE value, int pe", "{value}", dep="1.4"),
    _amo("add", "ADD", "dep_amo", "void", "TYPE *dest, TYPE value, int pe", "{value}", dep="1.4"),
    # ---------------- put with signal, signal operations ----------------
    F("put_signal", "signal", GENERATED, "void", _SIGNAL,
      "shmemi_put_signal({ctx}, dest, source, {nbytes}, sig_addr, signal, sig_op, pe, {fn})", types="rma",
      sized="put{SIZE}_signal", mem="putmem_signal", ctx=True, generic=True),
    F("put_signal_nbi", "signal", GENERATED, "void", _SIGNAL,
      "shmemi_put_signal_nbi({ctx}, dest, source, {nbytes}, sig_addr, signal, sig_op, pe, {fn})", types="rma",
      sized="put{SIZE}_signal_nbi", mem="putmem_signal_nbi", ctx=True, generic=True),
    # 1.6: a remote signal update is a 64-bit AMO on the signal word
    F("signal_set", "signal", GENERATED, "void", "uint64_t *sig_addr, uint64_t signal, int pe",
      "shmemi_amo({ctx}, SHMEMI_AMO_SET, sig_addr, signal, 0, sizeof(uint64_t), pe, {fn})", ctx=True, generic=True,
      spec="1.6"),
    F("signal_add", "signal", GENERATED, "void", "uint64_t *sig_addr, uint64_t signal, int pe",
      "shmemi_amo({ctx}, SHMEMI_AMO_ADD, sig_addr, signal, 0, sizeof(uint64_t), pe, {fn})", ctx=True, generic=True,
      spec="1.6"),
    F("signal_fetch", "signal", CORE, "uint64_t", "const uint64_t *sig_addr"),
    F("signal_wait_until", "signal", CORE, "uint64_t", "uint64_t *sig_addr, int cmp, uint64_t cmp_value"),
    # ---------------- point-to-point synchronization ----------------
    F("wait_until", "p2p", GENERATED, "void", "TYPE *ivar, int cmp, TYPE cmp_value",
      "shmemi_wait_until(ivar, cmp, &cmp_value, {dtype}, {fn})", types="amo_std", dep_types="dep_p2p_short",
      generic=True),
    _wait_set("wait_until_all", "void", _SET1, "ALL", 1, False, 0),
    _wait_set("wait_until_any", "size_t", _SET1, "ANY", 1, False, 0),
    _wait_set("wait_until_some", "size_t", _SOME1, "SOME", 1, True, 0),
    _wait_set("wait_until_all_vector", "void", _SETV, "ALL", 1, False, 1),
    _wait_set("wait_until_any_vector", "size_t", _SETV, "ANY", 1, False, 1),
    _wait_set("wait_until_some_vector", "size_t", _SOMEV, "SOME", 1, True, 1),
    F("test", "p2p", GENERATED, "int", "TYPE *ivar, int cmp, TYPE cmp_value",
      "shmemi_test(ivar, cmp, &cmp_value, {dtype}, {fn})", types="amo_std", dep_types="dep_p2p_short",
      generic=True),
    _wait_set("test_all", "int", _SET1, "ALL", 0, False, 0),
    _wait_set("test_any", "size_t", _SET1, "ANY", 0, False, 0),
    _wait_set("test_some", "size_t", _SOME1, "SOME", 0, True, 0),
    _wait_set("test_all_vector", "int", _SETV, "ALL", 0, False, 1),
    _wait_set("test_any_vector", "size_t", _SETV, "ANY", 0, False, 1),
    _wait_set("test_some_vector", "size_t", _SOMEV, "SOME", 0, True, 1),
    # deprecated (1.4): shmem_TYPENAME_wait blocks while *ivar == cmp_value; untyped forms act on long
    F("wait", "p2p", GENERATED, "void", "TYPE *ivar, TYPE cmp_value",
      "shmemi_wait_until(ivar, SHMEM_CMP_NE, &cmp_value, {dtype}, {fn})", types="dep_wait", deprecated="1.4"),
    F("wait.long", "p2p", GENERATED, "void", "long *ivar, long cmp_value",
      "shmemi_wait_until(ivar, SHMEM_CMP_NE, &cmp_value, SHMEMI_DT_LONG, {fn})", name="wait", deprecated="1.4"),
    F("wait_until.long", "p2p", GENERATED, "void", "long *ivar, int cmp, long cmp_value",
      "shmemi_wait_until(ivar, cmp, &cmp_value, SHMEMI_DT_LONG, {fn})", name="wait_until", deprecated="1.4"),
    # ---------------- library setup, exit, query ----------------
    F("init", "setup", CORE, "void", "void"),
    F("init_thread", "setup", CORE, "int", "int requested, int *provided"),
    F("query_thread", "setup", CORE, "void", "int *provided"),
    F("query_initialized", "setup", CORE, "void", "int *initialized", spec="1.6"),
    F("finalize", "setup", CORE, "void", "void"),
    F("global_exit", "setup", CORE, "void", "int status"),
    F("my_pe", "setup", CORE, "int", "void"),
    F("n_pes", "setup", CORE, "int", "void"),
    F("pe_accessible", "setup", CORE, "int", "int pe"),
    F("addr_accessible", "setup", CORE, "int", "const void *addr, int pe"),
    F("ptr", "setup", CORE, "void *", "const void *dest, int pe"),
    F("info_get_version", "setup", CORE, "void", "int *major, int *minor"),
    F("info_get_name", "setup", CORE, "void", "char *name"),
    F("pcontrol", "setup", CORE, "void", "int level, ..."),
    F("start_pes", "setup", CORE, "void", "int npes", deprecated="1.2", prefix=""),  # names without shmem_ prefix
    F("_my_pe", "setup", CORE, "int", "void", deprecated="1.2", prefix=""),
    F("_num_pes", "setup", CORE, "int", "void", deprecated="1.2", prefix=""),
    # ---------------- memory management ----------------
    F("malloc", "mem", CORE, "void *", "size_t size"),
    F("free", "mem", CORE, "void", "void *ptr"),
    F("realloc", "mem", CORE, "void *", "void *ptr, size_t size"),
    F("align", "mem", CORE, "void *", "size_t alignment, size_t size"),
    F("calloc", "mem", CORE, "void *", "size_t count, size_t size"),
    F("malloc_with_hints", "mem", CORE, "void *", "size_t size, long hints"),
    F("shmalloc", "mem", CORE, "void *", "size_t size", deprecated="1.2", prefix=""),
    F("shfree", "mem", CORE, "void", "void *ptr", deprecated="1.2", prefix=""),
    F("shrealloc", "mem", CORE, "void *", "void *ptr, size_t size", deprecated="1.2", prefix=""),
    F("shmemalign", "mem", CORE, "void *", "size_t alignment, size_t size", deprecated="1.2", prefix=""),
    # ---------------- memory ordering ----------------
    F("fence", "order", CORE, "void", "void", ctx=True),
    F("quiet", "order", CORE, "void", "void", ctx=True),
    F("pe_quiet", "order", CORE, "void", "const int *target_pes, size_t npes", ctx=True, spec="1.6"),
    # ---------------- distributed locking ----------------
    F("set_lock", "lock", CORE, "void", "long *lock"),
    F("clear_lock", "lock", CORE, "void", "long *lock"),
    F("test_lock", "lock", CORE, "int", "long *lock"),
    # ---------------- cache management (deprecated 1.3, last in 1.4; no-ops kept for old programs) ----------------
    F("clear_cache_inv", "cache", CORE, "void", "void", spec="1.3", deprecated="1.3"),
    F("set_cache_inv", "cache", CORE, "void", "void", spec="1.3", deprecated="1.3"),
    F("clear_cache_line_inv", "cache", CORE, "void", "void *dest", spec="1.3", deprecated="1.3"),
    F("set_cache_line_inv", "cache", CORE, "void", "void *dest", spec="1.3", deprecated="1.3"),
    F("udcflush", "cache", CORE, "void", "void", spec="1.3", deprecated="1.3"),
    F("udcflush_line", "cache", CORE, "void", "void *dest", spec="1.3", deprecated="1.3"),
    # ---------------- contexts (hand-written: src/coll/team.c) ----------------
    F("ctx_create", "ctx", CORE, "int", "long options, shmem_ctx_t *ctx"),
    F("ctx_destroy", "ctx", CORE, "void", "shmem_ctx_t ctx"),
    F("ctx_get_team", "ctx", CORE, "int", "shmem_ctx_t ctx, shmem_team_t *team"),
    F("ctx_session_start", "ctx", CORE, "void",
      "shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config, long config_mask", spec="1.6"),
    F("ctx_session_stop", "ctx", CORE, "void", "shmem_ctx_t ctx", spec="1.6"),
    # ---------------- teams ----------------
    F("team_my_pe", "team", CORE, "int", "shmem_team_t team"),
    F("team_n_pes", "team", CORE, "int", "shmem_team_t team"),
    F("team_get_config", "team", CORE, "int", "shmem_team_t team, long config_mask, shmem_team_config_t *config"),
    F("team_translate_pe", "team", CORE, "int", "shmem_team_t src_team, int src_pe, shmem_team_t dest_team"),
    F("team_split_strided", "team", CORE, "int",
      "shmem_team_t parent_team, int start, int stride, int size, const shmem_team_config_t *config, "
      "long config_mask, shmem_team_t *new_team"),
    F("team_split_2d", "team", CORE, "int",
      "shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask, "
      "shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask, shmem_team_t *yaxis_team"),
    F("team_destroy", "team", CORE, "void", "shmem_team_t team"),
    F("team_create_ctx", "team", CORE, "int", "shmem_team_t team, long options, shmem_ctx_t *ctx"),
    F("team_ptr", "team", CORE, "void *", "shmem_team_t team, const void *dest, int pe", spec="1.6"),
    # ---------------- collectives (src/coll) ----------------
    F("barrier_all", "coll", CORE, "void", "void"),
    F("barrier", "coll", CORE, "void", _ASET, deprecated="1.5"),
    F("sync_all", "coll", CORE, "void", "void"),
    F("team_sync", "coll", CORE, "int", "shmem_team_t team"),
    F("sync.team", "coll", CORE, "int", "shmem_team_t team", name="sync", c11_only=True),  # C11 name of team_sync
    F("sync", "coll", CORE, "void", _ASET, deprecated="1.5"),
    *_coll("broadcast", "TYPE *dest, const TYPE *source, size_t nelems, int PE_root",
           "shmemi_broadcast(team, dest, source, {nbytes}, PE_root, {fn})",
           "void *dest, const void *source, size_t nelems, int PE_root",
           "shmemi_broadcast_aset(dest, source, {nbytes}, PE_root, " + _ASET_ARGS),
    *_coll("collect", "TYPE *dest, const TYPE *source, size_t nelems",
           "shmemi_collect(team, dest, source, {nbytes}, {fn})", "void *dest, const void *source, size_t nelems",
           "shmemi_collect_aset(dest, source, {nbytes}, " + _ASET_ARGS),
    *_coll("fcollect", "TYPE *dest, const TYPE *source, size_t nelems",
           "shmemi_fcollect(team, dest, source, {nbytes}, {fn})", "void *dest, const void *source, size_t nelems",
           "shmemi_fcollect_aset(dest, source, {nbytes}, " + _ASET_ARGS),
    *_coll("alltoall", "TYPE *dest, const TYPE *source, size_t nelems",
           "shmemi_alltoall(team, dest, source, {nbytes}, {fn})", "void *dest, const void *source, size_t nelems",
           "shmemi_alltoall_aset(dest, source, {nbytes}, " + _ASET_ARGS),
    *_coll("alltoalls", "TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems",
           "shmemi_alltoalls(team, dest, source, dst, sst, nelems, {esize}, {fn})",
           "void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems",
           "shmemi_alltoalls_aset(dest, source, dst, sst, nelems, {esize}, " + _ASET_ARGS),
    *_reduce("and", "reduce_bit", "aset_bit"),
    *_reduce("or", "reduce_bit", "aset_bit"),
    *_reduce("xor", "reduce_bit", "aset_bit"),
    *_reduce("max", "reduce_minmax", "aset_minmax"),
    *_reduce("min", "reduce_minmax", "aset_minmax"),
    *_reduce("sum", "reduce_arith", "aset_arith"),
    *_reduce("prod", "reduce_arith", "aset_arith"),
    F("sum_inscan", "coll", GENERATED, "int", "shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems",
      "shmemi_scan(team, 0, {dtype}, dest, source, nelems, {fn})", types="reduce_arith", generic=True, generic_arg=1,
      spec="1.6"),
    F("sum_exscan", "coll", GENERATED, "int", "shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems",
      "shmemi_scan(team, 1, {dtype}, dest, source, nelems, {fn})", types="reduce_arith", generic=True, generic_arg=1,
      spec="1.6"),
]

# Where generated families go: one C file per group.
FILES = {
    "rma": ("src/api/rma.c", "typed and sized RMA routines (put, get, p, g, iput, iget, ibput, ibget, nbi forms)"),
    "amo": ("src/api/amo.c", "typed atomic memory operations, blocking and non-blocking, and their deprecated names"),
    "signal": ("src/api/signal.c", "put-with-signal routines and remote signal updates"),
    "p2p": ("src/api/p2p.c", "point-to-point synchronization: waits and tests on local symmetric variables"),
    "coll": ("src/api/coll.c", "typed, sized and byte collectives on teams and (deprecated) active sets"),
}
HEADER = "include/gshmem/shmem_api.h"

# ---- GPU-centric device routines (the GPU auxiliary specification's typed shmemg_* families) ----
# gen.py emits include/gshmem/device/shmemg_device_typed.h: inline device functions that forward to the templates of
# include/gshmem/device/shmemg_device.h. Each row: (stem, type table, return, params without ctx, call, granularities,
# ctx form). In `call`, {c} is the context index expression, {fn} the routine name, TYPE the element type.
DEVICE_HEADER = "include/gshmem/device/shmemg_device_typed.h"
DEVICE_FAMILIES = [
    # p/g: the standard RMA types (gc_rma.tex); long double moves as the kernel's long double, which nvcc and hipcc
    # make a double (shmemgi::p_ld/g_ld), so it matches other kernels' long double objects, not the host's
    ("p", "rma_dev", "void", "TYPE *dest, TYPE value, int pe", "shmemgi::p<TYPE>({c}, dest, value, pe, {fn})", ("",),
     True),
    ("g", "rma_dev", "TYPE", "const TYPE *source, int pe", "return shmemgi::g<TYPE>({c}, source, pe, {fn})", ("",),
     True),
    ("p", "rma_dev_ld", "void", "TYPE *dest, TYPE value, int pe", "shmemgi::p_ld({c}, dest, value, pe, {fn})", ("",),
     True),
    ("g", "rma_dev_ld", "TYPE", "const TYPE *source, int pe", "return shmemgi::g_ld({c}, source, pe, {fn})", ("",),
     True),
    # AMOs. The GPU auxiliary specification types every AMO by the standard AMO types (gc_amo.tex); gshmem adds float
    # and double to fetch/set/swap, as the host's extended AMOs have them. The bitwise ones (and, or, xor, their
    # fetching and nbi forms) take every standard AMO type there, int, long, long long, size_t and ptrdiff_t included,
    # where the host specification's take only its bitwise AMO types (docs/device.md).
    ("atomic_fetch", "amo_ext", "TYPE", "const TYPE *source, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH, (TYPE *)source, 0, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_set", "amo_ext", "void", "TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_SET, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_swap", "amo_ext", "TYPE", "TYPE *dest, TYPE value, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_SWAP, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_compare_swap", "amo_std", "TYPE", "TYPE *dest, TYPE cond, TYPE value, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_CSWAP, dest, value, cond, pe, nullptr, {fn})", ("",), True),
    ("atomic_fetch_inc", "amo_std", "TYPE", "TYPE *dest, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_INC, dest, 0, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_inc", "amo_std", "void", "TYPE *dest, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_INC, dest, 0, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_fetch_add", "amo_std", "TYPE", "TYPE *dest, TYPE value, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_ADD, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_add", "amo_std", "void", "TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_ADD, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_fetch_and", "amo_std", "TYPE", "TYPE *dest, TYPE value, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_AND, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_and", "amo_std", "void", "TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_AND, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_fetch_or", "amo_std", "TYPE", "TYPE *dest, TYPE value, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_OR, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_or", "amo_std", "void", "TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_OR, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_fetch_xor", "amo_std", "TYPE", "TYPE *dest, TYPE value, int pe",
     "return shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_XOR, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    ("atomic_xor", "amo_std", "void", "TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_XOR, dest, value, 0, pe, nullptr, {fn})", ("",), True),
    # nonblocking fetching AMOs: the old value lands in fetch (GPU heap) by the next quiet
    ("atomic_fetch_nbi", "amo_ext", "void", "TYPE *fetch, const TYPE *source, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH, (TYPE *)source, 0, 0, pe, fetch, {fn})", ("",), True),
    ("atomic_swap_nbi", "amo_ext", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_SWAP, dest, value, 0, pe, fetch, {fn})", ("",), True),
    ("atomic_compare_swap_nbi", "amo_std", "void", "TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_CSWAP, dest, value, cond, pe, fetch, {fn})", ("",), True),
    ("atomic_fetch_inc_nbi", "amo_std", "void", "TYPE *fetch, TYPE *dest, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_INC, dest, 0, 0, pe, fetch, {fn})", ("",), True),
    ("atomic_fetch_add_nbi", "amo_std", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_ADD, dest, value, 0, pe, fetch, {fn})", ("",), True),
    ("atomic_fetch_and_nbi", "amo_std", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_AND, dest, value, 0, pe, fetch, {fn})", ("",), True),
    ("atomic_fetch_or_nbi", "amo_std", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_OR, dest, value, 0, pe, fetch, {fn})", ("",), True),
    ("atomic_fetch_xor_nbi", "amo_std", "void", "TYPE *fetch, TYPE *dest, TYPE value, int pe",
     "shmemgi::amo_t<TYPE>({c}, SHMEMGI_AMO_FETCH_XOR, dest, value, 0, pe, fetch, {fn})", ("",), True),
    # gshmem's extensions: typed reductions inside kernels on device teams (the host's team reduction types, but
    # long double and the complex types)
    *[("%s_reduce" % op, tt, "int", "shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce",
       {g: "return shmemgi::reduce<TYPE, shmemgi::RED_%s>(shmemgi::%s_grp(), team, dest, source, nreduce, {fn})"
        % (op.upper(), {"": "thread", "_tg": "tg", "_htg": "htg"}[g]) for g in ("", "_tg", "_htg")},
       ("", "_tg", "_htg"), "gx")
      for op, tt in (("sum", "reduce_dev_arith"), ("prod", "reduce_dev_arith"), ("min", "reduce_dev_arith"),
                     ("max", "reduce_dev_arith"), ("and", "reduce_bit"), ("or", "reduce_bit"),
                     ("xor", "reduce_bit"))],
    # stream-ordered reductions (shmemx_TYPENAME_{sum,max,min}_reduce_on_stream): host routines of device-compiled
    # sources, a kernel on the stream (ctx form "host")
    *[("%s_reduce_on_stream" % op, "reduce_dev_arith", "int",
       "shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce, shmemx_stream_t stream",
       "SHMEMGI_LAUNCH((shmemgi::os_reduce<TYPE, shmemgi::RED_%s>), stream, team, dest, source, nreduce); return 0"
       % op.upper(), ("",), "host")
      for op in ("sum", "max", "min")],
    # point-to-point synchronization on a local GPU heap object (no context forms)
    ("wait_until", "p2p", "void", "TYPE *ivar, int cmp, TYPE cmp_value",
     {"": "shmemgi::wait_until<TYPE>(ivar, cmp, cmp_value, {fn})",
      "_tg": "shmemgi::wait_until_tg<TYPE>(ivar, cmp, cmp_value, {fn})",
      "_htg": "shmemgi::wait_until_htg<TYPE>(ivar, cmp, cmp_value, {fn})"}, ("", "_tg", "_htg"), False),
    ("test", "p2p", "int", "TYPE *ivar, int cmp, TYPE cmp_value",
     {"": "return shmemgi::test<TYPE>(ivar, cmp, cmp_value, {fn})",
      "_tg": "return shmemgi::test_tg<TYPE>(ivar, cmp, cmp_value, {fn})",
      "_htg": "return shmemgi::test_htg<TYPE>(ivar, cmp, cmp_value, {fn})"}, ("", "_tg", "_htg"), False),
]
