/* imports.c: the files a .mcp.yaml file imports (`imports: [common.mcp.yaml]`).
 *
 * From the file compiled, each import is read (its path relative to the
 * importing file), loaded, and its own imports in turn, depth first. A file
 * imported twice (by two files, or by a path spelt another way) is loaded
 * once: the reader says which paths are the same file. A file that imports
 * itself, directly or through others, is an error at the import that closes
 * the cycle, with a note at the import that opened it; so is a file that
 * cannot be read. The checker (check.c) then reads the types of every unit.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "ir.h"
#include "node.h"

enum { MAX_IMPORT_DEPTH = 256 }; /* files in one chain of imports */

typedef struct importer {
    mcp_arena *a;
    idl_diags *d;
    const idl_reader *r;
    const idl_load_limits *limits;
    idl_unit *units;
    size_t n, cap;
    const char **ids;      /* per unit: what the reader says identifies its file (NULL: unknown) */
    const char **dirs;     /* per unit: what its imports' paths are relative to */
    uint8_t *state;        /* per unit: 0 not yet walked, 1 on the walk, 2 done */
    idl_loc *via;          /* per unit on the walk: the import that is being followed from it */
    const char **via_path; /* and the path it imports */
    bool oom;
} importer;

/* The part of `name` up to and including its last '/' ("" for none). */
static char *dir_of(mcp_arena *a, const char *name)
{
    const char *slash = strrchr(name, '/');
    return mcp_arena_strndup(a, name, slash ? (size_t)(slash - name) + 1 : 0);
}

/* NAME of a file: its name without directories and without ".mcp.yaml" (or
 * ".mcp.yml", ".yaml", ".yml"). */
const char *idl_file_stem(mcp_arena *a, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    static const char *const SUFFIXES[] = {".mcp.yaml", ".mcp.yml", ".yaml", ".yml"};
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof *SUFFIXES; i++) {
        size_t k = strlen(SUFFIXES[i]);
        if (n > k && strcmp(base + n - k, SUFFIXES[i]) == 0) {
            n -= k;
            break;
        }
    }
    return mcp_arena_strndup(a, base, n);
}

static size_t add_unit(importer *im, const char *path, const char *dir, const char *id, uint32_t file,
                       const idl_node *root)
{
    if (im->n == im->cap) {
        size_t cap = im->cap ? im->cap * 2 : 8;
        idl_unit *units = mcp_arena_realloc(im->a, im->units, im->cap * sizeof *units, cap * sizeof *units);
        const char **ids = mcp_arena_realloc(im->a, im->ids, im->cap * sizeof *ids, cap * sizeof *ids);
        const char **dirs = mcp_arena_realloc(im->a, im->dirs, im->cap * sizeof *dirs, cap * sizeof *dirs);
        if (dirs)
            im->dirs = dirs;
        uint8_t *state = mcp_arena_realloc(im->a, im->state, im->cap, cap);
        idl_loc *via = mcp_arena_realloc(im->a, im->via, im->cap * sizeof *via, cap * sizeof *via);
        const char **via_path = mcp_arena_realloc(im->a, im->via_path, im->cap * sizeof *via_path,
                                                  cap * sizeof *via_path);
        if (via_path)
            im->via_path = via_path;
        if (units)
            im->units = units;
        if (ids)
            im->ids = ids;
        if (state)
            im->state = state;
        if (via)
            im->via = via;
        if (!units || !ids || !dirs || !state || !via || !via_path) {
            im->oom = true;
            return SIZE_MAX;
        }
        im->cap = cap;
    }
    const char *stem = idl_file_stem(im->a, path);
    if (!stem) {
        im->oom = true;
        return SIZE_MAX;
    }
    im->units[im->n] = (idl_unit){.path = path, .stem = stem, .root = root, .file = file};
    im->ids[im->n] = id;
    im->dirs[im->n] = dir;
    im->state[im->n] = 0;
    im->via[im->n] = (idl_loc){0, 0, 0};
    im->via_path[im->n] = NULL;
    return im->n++;
}

static bool add_edge(importer *im, size_t u, size_t v, idl_loc loc)
{
    idl_unit *x = &im->units[u];
    size_t *imports = mcp_arena_realloc(im->a, x->imports, x->nimports * sizeof *imports,
                                        (x->nimports + 1) * sizeof *imports);
    idl_loc *locs = mcp_arena_realloc(im->a, x->import_locs, x->nimports * sizeof *locs,
                                      (x->nimports + 1) * sizeof *locs);
    if (imports)
        x->imports = imports;
    if (locs)
        x->import_locs = locs;
    if (!imports || !locs)
        return !(im->oom = true);
    x->imports[x->nimports] = v;
    x->import_locs[x->nimports++] = loc;
    return true;
}

static const char *shown(const importer *im, size_t u) { return im->units[u].path; }

static void walk(importer *im, size_t u, size_t depth);

/* Follow import `item` (a node of the `imports` list) of unit u. */
static void follow(importer *im, size_t u, const idl_node *item, size_t depth)
{
    if (item->kind != IDL_NODE_STR || !item->str[0] || memchr(item->str, 0, item->len)) {
        idl_error(im->d, item->loc, "an import is the path of a .mcp.yaml file, relative to this file; not %s",
                  item->kind == IDL_NODE_STR ? "an empty string" : idl_node_kind_name(item));
        return;
    }
    /* Relative to the importing file's directory; an absolute path as it is. */
    const char *path = item->str[0] == '/' ? item->str : idl_fmt(im->a, "%s%s", im->dirs[u], item->str);
    const char *sub = dir_of(im->a, item->str);
    const char *dir = sub && item->str[0] != '/' ? idl_fmt(im->a, "%s%s", im->dirs[u], sub) : sub;
    if (!path || !dir) {
        im->oom = true;
        return;
    }
    size_t len = 0;
    const char *id = NULL, *why = NULL;
    const char *text = im->r->read(im->r->ctx, im->a, path, &len, &id, &why);
    if (!text) {
        idl_error(im->d, item->loc, "cannot read imported file '%s': %s", path, why ? why : "unknown error");
        return;
    }
    for (size_t v = 0; v < im->n; v++) {
        if (!id || !im->ids[v] || strcmp(id, im->ids[v]) != 0)
            continue;
        for (size_t k = 0; k < im->units[u].nimports; k++)
            if (im->units[u].imports[k] == v) {
                idl_error(im->d, item->loc, "'%s' is imported twice", item->str);
                idl_note(im->d, im->units[u].import_locs[k], "'%s' first imported here", shown(im, v));
                return;
            }
        if (im->state[v] == 1) {
            if (v == u) {
                idl_error(im->d, item->loc, "import cycle: '%s' imports itself", shown(im, u));
            } else {
                idl_error(im->d, item->loc, "import cycle: '%s' imports '%s', which imports '%s'%s", shown(im, u),
                          shown(im, v), shown(im, u), im->via_path[v] == shown(im, u) ? "" : " through others");
                idl_note(im->d, im->via[v], "'%s' imports '%s' here", shown(im, v), im->via_path[v]);
            }
            return;
        }
        add_edge(im, u, v, item->loc);
        return;
    }
    if (depth >= MAX_IMPORT_DEPTH) {
        idl_error(im->d, item->loc, "imports nested more than %d files deep", MAX_IMPORT_DEPTH);
        return;
    }
    uint32_t file = idl_diags_add_file(im->d, path, text, len);
    if (!file) {
        im->oom = true;
        return;
    }
    idl_node *root = idl_load_yaml_file(im->a, im->d, file, text, len, im->limits);
    size_t v = add_unit(im, path, dir, id, file, root);
    if (v == SIZE_MAX || !add_edge(im, u, v, item->loc))
        return;
    if (root) {
        im->via[u] = item->loc;
        im->via_path[u] = path;
        walk(im, v, depth + 1);
    }
}

static void walk(importer *im, size_t u, size_t depth)
{
    im->state[u] = 1;
    const idl_node *root = im->units[u].root;
    const idl_node *imports = root && root->kind == IDL_NODE_MAP ? idl_map_get(root, "imports") : NULL;
    if (imports && imports->kind == IDL_NODE_SEQ) {
        for (size_t i = 0; i < imports->n && !im->oom; i++)
            follow(im, u, imports->items[i], depth);
    } else if (imports && imports->kind != IDL_NODE_NULL) {
        idl_error(im->d, imports->loc, "'imports' must be a list of file paths ([common.mcp.yaml]), not %s",
                  idl_node_kind_name(imports));
    }
    im->state[u] = 2;
}

bool idl_load_imports(mcp_arena *a, idl_diags *d, const idl_node *root, const char *path, const char *dir,
                      const char *id, const idl_reader *r, const idl_load_limits *limits, idl_unit **units,
                      size_t *nunits)
{
    importer im = {.a = a, .d = d, .r = r, .limits = limits};
    if (add_unit(&im, path, dir ? dir : "", id, 0, root) == SIZE_MAX)
        return false;
    walk(&im, 0, 0);
    *units = im.units;
    *nunits = im.n;
    return !im.oom;
}
