/* Types of the semantic stage: interned bit<W>/int<W>, type references resolved to
 * struct p4_type, slot and bit layouts of headers, structs and unions, enums and errors.
 * Types are owned by the program (prog->types). */
#ifndef SIM_P4_P4TYPE_H
#define SIM_P4_P4TYPE_H

#include "p4/engine/p4sem.h"

struct p4_type *p4type_new(struct p4sem *s, enum p4type_kind k, int width);
/* The one bit<W> (or int<W>) type of that width. */
struct p4_type *p4type_bit(struct p4sem *s, int width, bool is_signed);
/* The one elem[size] header stack type (types are compared by identity). */
struct p4_type *p4type_stack(struct p4sem *s, struct p4_type *elem, int size);
/* The one tuple<el[0], ..., el[n-1]> type: a struct whose fields are indexed by constants. */
struct p4_type *p4type_tuple(struct p4sem *s, struct p4_type *const *el, int n);
/* bit, int, bool, enum, error */
bool p4type_is_scalar(const struct p4_type *t);
/* bit<W>, int<W> */
bool p4type_is_num(const struct p4_type *t);
/* A fixed run of bits on the wire: bit, int, bool, a serializable enum, or a struct of
 * those (allowed as header fields, P4_16 7.2.3; readable with lookahead). */
bool p4type_is_bits(const struct p4_type *t);
/* header, struct, stack, varbit, union */
bool p4type_is_compound(const struct p4_type *t);
/* Name of t for messages (bit<8>, int<4>, the declared name). */
const char *p4type_str(const struct p4_type *t, char *buf, size_t n);
/* Whether values of t can be kept in slots (scalars and compound types); else reports
 * "WHAT of type T is not supported" at loc. */
bool p4type_storable(struct p4sem *s, const struct p4_type *t, struct p4_loc loc,
                     const char *what);
/* The type a type reference names (errors reported; a stand-in type after an error). */
struct p4_type *p4type_resolve(struct p4sem *s, const struct p4ast *t);
/* Lays out the fields of a header, struct or union declaration. */
struct p4_type *p4type_layout(struct p4sem *s, const struct p4ast *d, enum p4type_kind k);
void p4type_declare_enum(struct p4sem *s, const struct p4ast *d);
void p4type_declare_errors(struct p4sem *s, const struct p4ast *d);

#endif
