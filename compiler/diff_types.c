/* diff_types.c: two versions of a type, field list or constraint set compared
 * side by side (diff_int.h), each difference reported with its verdict for
 * the side (input or output) it is on.
 */
#include <stdio.h>
#include <string.h>

#include "diff_int.h"
#include "fmt.h"

static const char *bound_text(differ *d, bound b, bool upper)
{
    if (!b.set)
        return "none";
    const char *s = idl_fmt(d->a, "%s %.17g", upper ? (b.excl ? "<" : "<=") : (b.excl ? ">" : ">="), b.v);
    if (!s)
        d->oom = true;
    return s ? s : "";
}

/* The mapping in NEW that is the value of the key at `at` (by_key), or that
 * starts at `at`, found by a walk of the tree; NULL when none. */
static const idl_node *find_map(const idl_node *m, idl_loc at, bool by_key, int depth)
{
    if (!m || depth > 64)
        return NULL;
    if (m->kind == IDL_NODE_MAP) {
        for (size_t i = 0; i < m->n; i++) {
            const idl_node *k = m->pairs[i].key, *v = m->pairs[i].value;
            idl_loc l = by_key ? k->loc : v->loc;
            if (v->kind == IDL_NODE_MAP && l.line == at.line && l.col == at.col)
                return v;
            const idl_node *r = find_map(v, at, by_key, depth + 1);
            if (r)
                return r;
        }
    } else if (m->kind == IDL_NODE_SEQ) {
        for (size_t i = 0; i < m->n; i++) {
            const idl_node *r = find_map(m->items[i], at, by_key, depth + 1);
            if (r)
                return r;
        }
    }
    return NULL;
}

/* Where constraint `key` is written in NEW, or `at`. */
static idl_loc key_loc(const differ *d, idl_loc at, const char *key)
{
    if (!d->field.line || !key)
        return at;
    /* A field's key; else the mapping of a returns (which starts where its
     * first key does, so the keys are tried first). */
    const idl_node *m = find_map(d->n->root, d->field, true, 0);
    if (!m)
        m = find_map(d->n->root, d->field, false, 0);
    if (m)
        for (size_t i = 0; i < m->n; i++)
            if (strcmp(m->pairs[i].key->str, key) == 0)
                return m->pairs[i].key->loc;
    return at;
}

/* Length and item-count limits: `lo` the minimum (raised: fewer values). */
static void cmp_count(differ *d, idl_loc at, side s, const char *subject, const char *name, bool lo, bool ohas,
                      int64_t ov, bool nhas, int64_t nv)
{
    if (ohas == nhas && (!ohas || ov == nv))
        return;
    int64_t odef = lo ? 0 : INT64_MAX, o2 = ohas ? ov : odef, n2 = nhas ? nv : odef;
    at = key_loc(d, at, nhas ? name : NULL);
    bool fewer = lo ? n2 > o2 : n2 < o2, more = lo ? n2 < o2 : n2 > o2;
    if (ohas && nhas)
        dx_judge(d, at, s, A_TYPE, fewer, more, subject, "%s %s from %lld to %lld", name,
                 nv > ov ? "raised" : "lowered", (long long)ov, (long long)nv);
    else if (nhas)
        dx_judge(d, at, s, A_TYPE, fewer, more, subject, "%s %lld added", name, (long long)nv);
    else
        dx_judge(d, at, s, A_TYPE, fewer, more, subject, "%s %lld removed", name, (long long)ov);
}

static void cmp_bound(differ *d, idl_loc at, side s, const char *subject, bound ob, bound nb, bool upper)
{
    int t = dx_tighter(ob, nb, upper);
    if (t == 0)
        return;
    const char *word = upper ? "upper bound" : "lower bound";
    at = key_loc(d, at,
                 !nb.set ? NULL
                 : upper ? (nb.excl ? "exclusiveMaximum" : "maximum")
                         : (nb.excl ? "exclusiveMinimum" : "minimum"));
    if (ob.set && nb.set && ob.excl == nb.excl) {
        const char *key = upper ? (ob.excl ? "exclusiveMaximum" : "maximum")
                                : (ob.excl ? "exclusiveMinimum" : "minimum");
        dx_judge(d, at, s, A_TYPE, t > 0,
                 t<0, subject, "%s %s from %.17g to %.17g", key, nb.v> ob.v ? "raised" : "lowered", ob.v, nb.v);
    } else {
        dx_judge(d, at, s, A_TYPE, t > 0, t < 0, subject, "%s changed from %s to %s", word, bound_text(d, ob, upper),
                 bound_text(d, nb, upper));
    }
}

static void cmp_constraints(differ *d, idl_loc at, side s, const char *subject, const ir_constraints *o,
                            const ir_constraints *n)
{
    cmp_bound(d, at, s, subject, dx_lower_of(o), dx_lower_of(n), false);
    cmp_bound(d, at, s, subject, dx_upper_of(o), dx_upper_of(n), true);
    if (o->has_multiple_of != n->has_multiple_of ||
        (o->has_multiple_of && ir_number_value(o->multiple_of) != ir_number_value(n->multiple_of))) {
        double ov = o->has_multiple_of ? ir_number_value(o->multiple_of) : 0;
        double nv = n->has_multiple_of ? ir_number_value(n->multiple_of) : 0;
        bool fewer = n->has_multiple_of && !(o->has_multiple_of && dx_multiple_within(ov, nv));
        idl_loc mat = key_loc(d, at, n->has_multiple_of ? "multipleOf" : NULL);
        bool more = o->has_multiple_of && !(n->has_multiple_of && dx_multiple_within(nv, ov));
        if (o->has_multiple_of && n->has_multiple_of)
            dx_judge(d, mat, s, A_TYPE, fewer, more, subject, "multipleOf changed from %.17g to %.17g", ov, nv);
        else if (n->has_multiple_of)
            dx_judge(d, mat, s, A_TYPE, fewer, more, subject, "multipleOf %.17g added", nv);
        else
            dx_judge(d, mat, s, A_TYPE, fewer, more, subject, "multipleOf %.17g removed", ov);
    }
    cmp_count(d, at, s, subject, "minLength", true, o->has_min_length, o->min_length, n->has_min_length, n->min_length);
    cmp_count(d, at, s, subject, "maxLength", false, o->has_max_length, o->max_length, n->has_max_length,
              n->max_length);
    cmp_count(d, at, s, subject, "minItems", true, o->has_min_items, o->min_items, n->has_min_items, n->min_items);
    cmp_count(d, at, s, subject, "maxItems", false, o->has_max_items, o->max_items, n->has_max_items, n->max_items);
    if (!dx_str_eq(o->pattern, n->pattern)) {
        idl_loc pat = key_loc(d, at, n->pattern ? "pattern" : NULL);
        if (o->pattern && n->pattern)
            dx_judge(d, pat, s, A_TYPE, true, true, subject, "pattern changed from '%s' to '%s'", o->pattern,
                     n->pattern);
        else if (n->pattern)
            dx_judge(d, pat, s, A_TYPE, true, false, subject, "pattern '%s' added", n->pattern);
        else
            dx_judge(d, pat, s, A_TYPE, false, true, subject, "pattern '%s' removed", o->pattern);
    }
    if (!dx_str_eq(o->format, n->format))
        dx_report(d, at, K_DESCRIPTION, false, false, subject,
                  "format changed from %s to %s (an annotation, not checked)", o->format ? o->format : "none",
                  n->format ? n->format : "none");
}

/* Literal or enum values. */
static void cmp_values(differ *d, idl_loc at, side s, const char *subject, const ir_type *o, const ir_type *n)
{
    size_t on, nn;
    const mcp_json *const *ov = dx_values_of(o, &on);
    const mcp_json *const *nv = dx_values_of(n, &nn);
    mcp_buf gone, added;
    mcp_buf_init(&gone);
    mcp_buf_init(&added);
    for (size_t i = 0; i < on; i++)
        if (!dx_has_value(nv, nn, ov[i])) {
            if (gone.len)
                mcp_buf_puts(&gone, ", ");
            dx_put_value(&gone, ov[i]);
        }
    for (size_t i = 0; i < nn; i++)
        if (!dx_has_value(ov, on, nv[i])) {
            if (added.len)
                mcp_buf_puts(&added, ", ");
            dx_put_value(&added, nv[i]);
        }
    if (gone.oom || added.oom)
        d->oom = true;
    else {
        if (gone.len)
            dx_judge(d, at, s, A_VALUES, true, false, subject, "value%s %s removed", strchr(gone.data, ',') ? "s" : "",
                     gone.data);
        if (added.len)
            dx_judge(d, at, s, A_VALUES, false, true, subject, "value%s %s added", strchr(added.data, ',') ? "s" : "",
                     added.data);
    }
    mcp_buf_free(&gone);
    mcp_buf_free(&added);
}

/* Mark the pair (o, n) on side s as compared; false when it already was.
 * *other: whether it was compared on the other side. */
static bool first_visit(differ *d, const ir_def *o, const ir_def *n, side s, bool *other)
{
    *other = false;
    for (size_t i = 0; i < d->nseen; i++)
        if (d->seen[i].o == o->index && d->seen[i].n == n->index) {
            if (d->seen[i].s == s)
                return false;
            *other = true;
        }
    if (d->nseen == d->capseen) {
        size_t cap = d->capseen ? d->capseen * 2 : 16;
        seen_pair *v = mcp_arena_realloc(d->a, d->seen, d->capseen * sizeof *v, cap * sizeof *v);
        if (!v) {
            d->oom = true;
            return false;
        }
        d->seen = v;
        d->capseen = cap;
    }
    d->seen[d->nseen++] = (seen_pair){o->index, n->index, s};
    return true;
}

static const ir_field *find_field(const ir_field *fs, size_t n, const char *name);

static void cmp_def(differ *d, side s, const ir_def *o, const ir_def *n)
{
    bool other;
    if (!first_visit(d, o, n, s, &other))
        return;
    const char *subject = idl_fmt(d->a, "type '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (o->kind == IR_DEF_ENUM) {
        ir_type ot = {.kind = IR_NAMED, .def = (ir_def *)o, .c = &ir_no_constraints},
                nt = {.kind = IR_NAMED, .def = (ir_def *)n, .c = &ir_no_constraints};
        cmp_values(d, n->loc, s, subject, &ot, &nt);
    } else {
        dx_cmp_fields(d, n->name, s, o, n, o->fields, o->nfields, n->fields, n->nfields, o->extra_forbid,
                      n->extra_forbid, n->loc, "field");
    }
    if (other)
        return; /* the notes below were given on the other side */
    if (!dx_str_eq(o->description, n->description))
        dx_report(d, n->loc, K_DESCRIPTION, false, false, subject, "description changed");
    ir_type ot = {.kind = IR_NAMED, .def = (ir_def *)o, .c = &ir_no_constraints},
            nt = {.kind = IR_NAMED, .def = (ir_def *)n, .c = &ir_no_constraints};
    bool equal = dx_sub(d, &ot, &nt, 0) && dx_sub(d, &nt, &ot, 0) && o->extra_forbid == n->extra_forbid &&
                 o->nfields == n->nfields;
    for (size_t i = 0; equal && i < o->nfields; i++) {
        const ir_field *nf = find_field(n->fields, n->nfields, o->fields[i].name);
        equal = nf && nf->required == o->fields[i].required;
    }
    if (strcmp(o->name, n->name) != 0)
        dx_report(d, n->loc, K_RENAMED, false, false, subject, "renamed from '%s'%s (only names in the schemas change)",
                  o->name, equal ? ", structurally equal" : "");
}

/* Whether two union arms are the same member, changed or not. */
static bool same_member(const ir_type *a, const ir_type *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == IR_NAMED)
        return strcmp(a->def->name, b->def->name) == 0;
    return true;
}

static void cmp_union(differ *d, const char *subject, side s, const ir_type *o, const ir_type *n, idl_loc at)
{
    const ir_type *one_o[1] = {o}, *one_n[1] = {n};
    size_t on = o->kind == IR_UNION ? o->nitems : 1, nn = n->kind == IR_UNION ? n->nitems : 1;
    const ir_type *const *oa = o->kind == IR_UNION ? (const ir_type *const *)o->items : one_o;
    const ir_type *const *na = n->kind == IR_UNION ? (const ir_type *const *)n->items : one_n;
    bool matched[64] = {0};
    if (nn > 64 || on > 64) {
        dx_judge(d, at, s, A_TYPE, !dx_sub(d, o, n, 0), !dx_sub(d, n, o, 0), subject, "type changed from %s to %s",
                 dx_type_text(d, o), dx_type_text(d, n));
        return;
    }
    /* Members matched by kind and name; then a lone model or record left on
     * each side is the same member renamed. */
    size_t pair[64];
    for (size_t i = 0; i < on; i++) {
        pair[i] = nn;
        for (size_t j = 0; j < nn && pair[i] == nn; j++)
            if (!matched[j] && same_member(oa[i], na[j])) {
                pair[i] = j;
                matched[j] = true;
            }
    }
    size_t lone_o = on, lone_n = nn, count_o = 0, count_n = 0;
    for (size_t i = 0; i < on; i++)
        if (pair[i] == nn && oa[i]->kind == IR_NAMED && !dx_is_enum(oa[i]))
            lone_o = i, count_o++;
    for (size_t j = 0; j < nn; j++)
        if (!matched[j] && na[j]->kind == IR_NAMED && !dx_is_enum(na[j]))
            lone_n = j, count_n++;
    if (count_o == 1 && count_n == 1) {
        pair[lone_o] = lone_n;
        matched[lone_n] = true;
    }
    for (size_t i = 0; i < on; i++) {
        size_t k = pair[i];
        if (k < nn) {
            dx_cmp_type(d, subject, s, oa[i], na[k], at);
        } else if (oa[i]->kind == IR_NONE) {
            if (!dx_sub(d, oa[i], n, 0))
                dx_judge(d, at, s, A_NULL, true, false, subject, "%s null (%s is now %s)",
                         s == IN ? "no longer accepts" : "may no longer be", dx_type_text(d, o), dx_type_text(d, n));
        } else if (!dx_sub(d, oa[i], n, 0)) {
            dx_judge(d, at, s, A_TYPE, true, false, subject, "union member %s removed (%s is now %s)",
                     dx_type_text(d, oa[i]), dx_type_text(d, o), dx_type_text(d, n));
        }
    }
    for (size_t j = 0; j < nn; j++) {
        if (matched[j] || dx_sub(d, na[j], o, 0))
            continue;
        if (na[j]->kind == IR_NONE)
            dx_judge(d, at, s, A_NULL, false, true, subject, "%s null (%s is now %s)",
                     s == IN ? "now accepts" : "may now be", dx_type_text(d, o), dx_type_text(d, n));
        else
            dx_judge(d, at, s, A_TYPE, false, true, subject, "union member %s added (%s is now %s)",
                     dx_type_text(d, na[j]), dx_type_text(d, o), dx_type_text(d, n));
    }
}

void dx_cmp_type(differ *d, const char *subject, side s, const ir_type *o, const ir_type *n, idl_loc at)
{
    if (d->oom)
        return;
    at = dx_loc_or(n->loc, at);
    bool o_values = o->kind == IR_LITERAL || dx_is_enum(o), n_values = n->kind == IR_LITERAL || dx_is_enum(n);
    if (o->kind == IR_NAMED && n->kind == IR_NAMED && dx_is_enum(o) == dx_is_enum(n)) {
        cmp_def(d, s, o->def, n->def);
        return;
    }
    if (o_values && n_values) {
        cmp_values(d, at, s, subject, o, n);
        return;
    }
    if (o->kind == IR_UNION || n->kind == IR_UNION) {
        cmp_union(d, subject, s, o, n, at);
        return;
    }
    if (o->kind == n->kind) {
        switch (o->kind) {
        case IR_INT:
        case IR_FLOAT:
        case IR_STR:
        case IR_BYTES:
            cmp_constraints(d, at, s, subject, o->c, n->c);
            return;
        case IR_LIST:
        case IR_SET:
            cmp_constraints(d, at, s, subject, o->c, n->c);
            dx_cmp_type(d, subject, s, o->elem, n->elem, at);
            return;
        case IR_DICT:
            if (o->int_keys != n->int_keys)
                dx_judge(d, at, s, A_TYPE, !o->int_keys, o->int_keys, subject, "keys changed from %s to %s",
                         o->int_keys ? "int" : "str", n->int_keys ? "int" : "str");
            dx_cmp_type(d, subject, s, o->elem, n->elem, at);
            return;
        case IR_TUPLE:
            if (o->nitems == n->nitems) {
                for (size_t i = 0; i < o->nitems; i++)
                    dx_cmp_type(d, subject, s, o->items[i], n->items[i], at);
                return;
            }
            break;
        case IR_NAMED:
            break; /* an enum and a model: below */
        case IR_FORMAT:
            if (o->format == n->format)
                return;
            break; /* datetime to date, ...: below */
        default:
            return; /* bool, None, any, content */
        }
    }
    if ((o->kind == IR_LIST || o->kind == IR_SET) && (n->kind == IR_LIST || n->kind == IR_SET)) {
        dx_judge(d, at, s, A_TYPE, n->kind == IR_SET, o->kind == IR_SET, subject, "type changed from %s to %s (%s)",
                 dx_type_text(d, o), dx_type_text(d, n),
                 n->kind == IR_SET ? "repeated items refused" : "repeated items allowed");
        cmp_constraints(d, at, s, subject, o->c, n->c);
        dx_cmp_type(d, subject, s, o->elem, n->elem, at);
        return;
    }
    if ((o->kind == IR_STR || o->kind == IR_BYTES) && (n->kind == IR_STR || n->kind == IR_BYTES)) {
        dx_report(d, at, K_DESCRIPTION, false, false, subject, "type changed from %s to %s: the same JSON strings",
                  dx_type_text(d, o), dx_type_text(d, n));
        cmp_constraints(d, at, s, subject, o->c, n->c);
        return;
    }
    bool lost = !dx_sub(d, o, n, 0), gained = !dx_sub(d, n, o, 0);
    dx_judge(d, at, s, A_TYPE, lost, gained, subject, "type changed from %s to %s", dx_type_text(d, o),
             dx_type_text(d, n));
}

static const ir_field *find_field(const ir_field *fs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fs[i].name, name) == 0)
            return &fs[i];
    return NULL;
}

/* Whether a field is always there: in input, one a client must send; in
 * output, one a client always receives (a model fills its defaults). */
static bool present(const ir_def *def, const ir_field *f, side s)
{
    return s == OUT && def && def->kind == IR_DEF_MODEL ? true : f->required;
}

/* The fields of two models or records (odef, ndef), or the parameters of a
 * tool (NULL, NULL; owner is the tool's name). */
void dx_cmp_fields(differ *d, const char *owner, side s, const ir_def *odef, const ir_def *ndef, const ir_field *ofs,
                   size_t on, const ir_field *nfs, size_t nn, bool oforbid, bool nforbid, idl_loc owner_loc,
                   const char *word)
{
    const char *of_what = odef ? "type" : "tool";
    for (size_t i = 0; i < on && !d->oom; i++) {
        const ir_field *of = &ofs[i], *nf = find_field(nfs, nn, of->name);
        const char *subject = idl_fmt(d->a, "%s '%s' of %s '%s'", word, of->name, of_what, owner);
        if (!subject) {
            d->oom = true;
            return;
        }
        if (!nf) {
            if (s == IN)
                dx_report(d, owner_loc, K_INPUT_REMOVED, true, false, subject, "removed; a value clients send %s",
                          nforbid ? "is refused (extra: forbid)" : "is ignored");
            else
                dx_report(d, owner_loc, K_OUTPUT_REMOVED, true, false, subject, "removed");
            dx_note(d, true, of->loc, "'%s' was declared here", of->name);
            continue;
        }
        bool op = present(odef, of, s), np = present(ndef, nf, s);
        if (op != np) {
            if (s == IN && np)
                dx_report(d, nf->loc, K_REQUIRED, true, false, subject, "now required%s",
                          of->default_value ? " (its default removed)" : "");
            else if (s == IN)
                dx_judge(d, nf->loc, s, A_TYPE, false, true, subject, "now optional");
            else if (!np)
                dx_report(d, nf->loc, K_OUTPUT_OPTIONAL, true, false, subject, "now optional: it may be absent");
            else
                dx_judge(d, nf->loc, s, A_TYPE, true, false, subject, "now always present");
        }
        if (of->default_value && nf->default_value && !mcp_json_equal(of->default_value, nf->default_value)) {
            if (s == IN)
                dx_report(d, nf->loc, K_DEFAULT, true, false, subject,
                          "default changed from %s to %s; clients that leave it out get the new one",
                          dx_value_text(d, of->default_value), dx_value_text(d, nf->default_value));
            else
                dx_report(d, nf->loc, K_DEFAULT, false, false, subject,
                          "default changed from %s to %s; filled in when the handler leaves it out",
                          dx_value_text(d, of->default_value), dx_value_text(d, nf->default_value));
        }
        if (!dx_str_eq(of->description, nf->description))
            dx_report(d, nf->loc, K_DESCRIPTION, false, false, subject, "description changed");
        if (!dx_str_eq(of->title, nf->title))
            dx_report(d, nf->loc, K_DESCRIPTION, false, false, subject, "title changed from '%s' to '%s'", of->title,
                      nf->title);
        idl_loc outer = d->field;
        d->field = nf->loc;
        dx_cmp_type(d, subject, s, of->type, nf->type, nf->loc);
        d->field = outer;
    }
    for (size_t i = 0; i < nn && !d->oom; i++) {
        const ir_field *nf = &nfs[i];
        if (find_field(ofs, on, nf->name))
            continue;
        const char *subject = idl_fmt(d->a, "%s '%s' of %s '%s'", word, nf->name, of_what, owner);
        if (!subject) {
            d->oom = true;
            return;
        }
        bool np = present(ndef, nf, s);
        if (s == IN && np)
            dx_report(d, nf->loc, K_REQUIRED, true, false, subject, "added, required");
        else if (s == IN)
            dx_judge(d, nf->loc, s, A_TYPE, false, true, subject, "added, optional");
        else if (np && !nf->default_value)
            dx_report(d, nf->loc, K_ADDED, false, true, subject,
                      "added; a server of the old contract does not send it");
        else
            dx_report(d, nf->loc, K_ADDED, false, false, subject,
                      np ? "added, with a default" : "added, may be absent");
    }
    if (s == IN && oforbid != nforbid) {
        const char *subject = idl_fmt(d->a, "%s '%s'", of_what, owner);
        if (!subject) {
            d->oom = true;
            return;
        }
        dx_judge(d, owner_loc, s, A_TYPE, nforbid, oforbid, subject, "%s",
                 nforbid ? "unknown keys now refused (extra: forbid)" : "unknown keys now ignored (extra: ignore)");
    }
}
