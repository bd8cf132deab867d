#include "artifact/elf_read.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* ELF structures are copied out of the buffer as they lie, which needs a little-endian host
 * as well as a little-endian file (the only kind CUDA makes). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "elf_read.c reads little-endian ELF structures in place and needs a little-endian host"
#endif

/* st_other bit that ptxas sets on every __global__ function (cuda-gdb's elfread.c; LLVM calls
 * it the same). CUDA 13 cubins also give each kernel a .nv.info.<name> section, but a
 * relocatable cubin gives non-kernel functions their own .text.<name> too, so the bit is
 * the one reliable marker. */
#define STO_CUDA_ENTRY 0x10

/* EI_ABIVERSION of cubins: V1 keeps the SM number in e_flags' low byte (EF_CUDA_SM); V2,
 * which CUDA 13 writes for every architecture, in the second byte (EF_CUDA_SM_MASK 0xff00).
 * Names from LLVM's BinaryFormat/ELF.h. */
#define ELFABIVERSION_CUDA_V1 7
#define ELFABIVERSION_CUDA_V2 8

typedef struct elf_view {
    const unsigned char *base;
    size_t size;
    const char *origin;
    Elf64_Ehdr eh;
    size_t shnum;
    size_t shstrndx;
} elf_view;

bool udfkit_elf_sniff(const void *data, size_t size, unsigned *machine)
{
    const unsigned char *p = data;
    if (size < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0 || p[EI_CLASS] != ELFCLASS64 ||
        p[EI_DATA] != ELFDATA2LSB)
        return false;
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    *machine = eh.e_machine;
    return true;
}

static udfkit_rc malformed(const elf_view *v, const char *what)
{
    return udfkit_fail(UDFKIT_RC_INPUT, v->origin, 0, "malformed ELF file: %s", what);
}

static bool read_shdr(const elf_view *v, size_t index, Elf64_Shdr *out)
{
    if (index >= v->shnum)
        return false;
    memcpy(out, v->base + v->eh.e_shoff + index * sizeof *out, sizeof *out);
    return true;
}

/* Sections beyond 0xff00 keep their count and the string table's index in section 0. */
static udfkit_rc open_view(const void *data, size_t size, const char *origin, elf_view *v)
{
    unsigned machine;
    memset(v, 0, sizeof *v);
    v->base = data;
    v->size = size;
    v->origin = origin;
    if (!udfkit_elf_sniff(data, size, &machine))
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "not a 64-bit little-endian ELF file");
    memcpy(&v->eh, data, sizeof v->eh);
    if (v->eh.e_shoff == 0)
        return UDFKIT_RC_OK;
    if (v->eh.e_shentsize != sizeof(Elf64_Shdr))
        return malformed(v, "unexpected section header size");
    if (v->eh.e_shoff > size || size - v->eh.e_shoff < sizeof(Elf64_Shdr))
        return malformed(v, "section headers past the end of the file");
    Elf64_Shdr first;
    memcpy(&first, v->base + v->eh.e_shoff, sizeof first);
    v->shnum = v->eh.e_shnum ? v->eh.e_shnum : first.sh_size;
    v->shstrndx = v->eh.e_shstrndx == SHN_XINDEX ? first.sh_link : v->eh.e_shstrndx;
    if (v->shnum > (size - v->eh.e_shoff) / sizeof(Elf64_Shdr))
        return malformed(v, "section headers past the end of the file");
    return UDFKIT_RC_OK;
}

static udfkit_rc section_bytes(const elf_view *v, const Elf64_Shdr *sh, const unsigned char **p, size_t *n)
{
    if (sh->sh_type == SHT_NOBITS) {
        *p = v->base;
        *n = 0;
        return UDFKIT_RC_OK;
    }
    if (sh->sh_offset > v->size || sh->sh_size > v->size - sh->sh_offset)
        return malformed(v, "a section lies past the end of the file");
    *p = v->base + sh->sh_offset;
    *n = (size_t)sh->sh_size;
    return UDFKIT_RC_OK;
}

/* A NUL-terminated string at `offset` inside the table, or NULL. */
static const char *string_at(const unsigned char *table, size_t size, uint64_t offset)
{
    if (offset >= size || !memchr(table + offset, '\0', size - (size_t)offset))
        return NULL;
    return (const char *)table + offset;
}

udfkit_rc udfkit_elf_section(const void *data, size_t size, const char *origin, const char *name, bool *found,
                             const unsigned char **section, size_t *section_size)
{
    elf_view v;
    *found = false;
    udfkit_rc rc = open_view(data, size, origin, &v);
    if (rc || v.shnum == 0)
        return rc;
    Elf64_Shdr strtab_hdr, sh;
    const unsigned char *names;
    size_t names_size;
    if (!read_shdr(&v, v.shstrndx, &strtab_hdr))
        return malformed(&v, "no section name table");
    if ((rc = section_bytes(&v, &strtab_hdr, &names, &names_size)))
        return rc;
    for (size_t i = 1; i < v.shnum; i++) {
        read_shdr(&v, i, &sh);
        const char *s = string_at(names, names_size, sh.sh_name);
        if (s && strcmp(s, name) == 0) {
            if ((rc = section_bytes(&v, &sh, section, section_size)))
                return rc;
            *found = true;
            return UDFKIT_RC_OK;
        }
    }
    return UDFKIT_RC_OK;
}

static bool add_name(udfkit_name_list *list, const char *name)
{
    if (list->count == list->cap) {
        size_t grown = list->cap ? list->cap * 2 : 16;
        const char **more = realloc(list->names, grown * sizeof *more);
        if (!more)
            return false;
        list->names = more;
        list->cap = grown;
    }
    list->names[list->count++] = name;
    return true;
}

static udfkit_rc read_symbols(const elf_view *v, const Elf64_Shdr *symtab, udfkit_cubin_info *out)
{
    const unsigned char *syms, *strings;
    size_t syms_size, strings_size;
    Elf64_Shdr strtab;
    udfkit_rc rc = section_bytes(v, symtab, &syms, &syms_size);
    if (rc)
        return rc;
    if (symtab->sh_entsize != sizeof(Elf64_Sym))
        return malformed(v, "unexpected symbol size");
    if (symtab->sh_link == 0 || !read_shdr(v, symtab->sh_link, &strtab))
        return malformed(v, "the symbol table has no string table");
    if ((rc = section_bytes(v, &strtab, &strings, &strings_size)))
        return rc;
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= syms_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym;
        memcpy(&sym, syms + off, sizeof sym);
        unsigned bind = ELF64_ST_BIND(sym.st_info);
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
            (bind != STB_GLOBAL && bind != STB_WEAK))
            continue;
        const char *name = string_at(strings, strings_size, sym.st_name);
        if (!name || !*name)
            return malformed(v, "a function symbol has no valid name");
        if (!add_name((sym.st_other & STO_CUDA_ENTRY) ? &out->kernels : &out->functions, name))
            return udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory");
    }
    return UDFKIT_RC_OK;
}

udfkit_rc udfkit_cubin_read(const void *data, size_t size, const char *origin, udfkit_cubin_info *out)
{
    elf_view v;
    memset(out, 0, sizeof *out);
    udfkit_rc rc = open_view(data, size, origin, &v);
    if (rc)
        return rc;
    if (v.eh.e_machine != UDFKIT_EM_CUDA)
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "not a cubin: the ELF machine is %u, not CUDA (190)",
                           (unsigned)v.eh.e_machine);
    unsigned abi = v.eh.e_ident[EI_ABIVERSION];
    if (abi == ELFABIVERSION_CUDA_V1)
        out->sm = v.eh.e_flags & 0xffu;
    else if (abi == ELFABIVERSION_CUDA_V2)
        out->sm = (v.eh.e_flags >> 8) & 0xffu;
    else
        return udfkit_fail(UDFKIT_RC_INPUT, origin, 0, "cubin ELF ABI version %u is not one udfkit knows (7 or 8)",
                           abi);
    for (size_t i = 1; i < v.shnum && !rc; i++) {
        Elf64_Shdr sh;
        read_shdr(&v, i, &sh);
        if (sh.sh_type == SHT_SYMTAB)
            rc = read_symbols(&v, &sh, out);
    }
    if (rc)
        udfkit_cubin_info_free(out);
    return rc;
}

void udfkit_cubin_info_free(udfkit_cubin_info *info)
{
    free(info->kernels.names);
    free(info->functions.names);
    memset(info, 0, sizeof *info);
}
