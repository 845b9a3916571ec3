#include "core/io/h5ad_writer.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/common/error.h"

#ifdef SEPAL_HAS_HDF5
#include <hdf5.h>

#include "core/io/atomic_file.h"
#endif

namespace sepal::io {

#ifndef SEPAL_HAS_HDF5

struct H5adWriter::State {};

H5adWriter::H5adWriter(const std::string& path, AnnDataVariables) {
    throw InputError(path +
                     ": this build of Sepal has no HDF5 (libhdf5-dev), so it cannot write .h5ad; "
                     "write .csv or .fcs instead");
}
H5adWriter::~H5adWriter() = default;
void H5adWriter::append(const AnnDataBlock&) {}
void H5adWriter::commit() {}
bool canWriteH5ad() {
    return false;
}

#else

namespace {

/// An HDF5 identifier closed by its own close function when it goes.
class Handle {
  public:
    Handle() = default;
    Handle(hid_t id, herr_t (*close)(hid_t)) : m_id(id), m_close(close) {}
    ~Handle() { reset(); }
    Handle(Handle&& o) noexcept : m_id(o.m_id), m_close(o.m_close) { o.m_id = -1; }
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) {
            reset();
            m_id = o.m_id;
            m_close = o.m_close;
            o.m_id = -1;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    /// The identifier HDF5's functions take.
    hid_t id() const { return m_id; }
    /// Closes it now (before the file is renamed).
    void reset() {
        if (m_id >= 0 && m_close) m_close(m_id);
        m_id = -1;
    }

  private:
    hid_t m_id = -1;
    herr_t (*m_close)(hid_t) = nullptr;
};

/// Rows of a chunk: about a megabyte of `rowBytes`-byte rows, so appending stays sequential.
hsize_t chunkRows(size_t rowBytes) {
    return std::max<hsize_t>(1, hsize_t(1 << 20) / std::max<size_t>(1, rowBytes));
}

/// A name HDF5 accepts for an element: no '/' (its path separator), not empty or ".".
std::string elementName(const std::string& name) {
    std::string out = name;
    std::replace(out.begin(), out.end(), '/', '_');
    if (out.empty() || out == ".") out = "_" + out;
    return out;
}

/// `names` made unique by appending " (2)", " (3)" ... to repeats.
std::vector<std::string> uniqueNames(std::vector<std::string> names) {
    std::set<std::string> seen;
    for (std::string& n : names) {
        const std::string base = n;
        for (int k = 2; !seen.insert(n).second; ++k) n = base + " (" + std::to_string(k) + ")";
    }
    return names;
}

}  // namespace

struct H5adWriter::State {
    std::string path;
    AtomicFile file;  // holds the temporary name and removes it unless committed
    size_t variables = 0;
    hsize_t rows = 0;
    Handle h5, text, flag;  // the file, variable-length UTF-8 strings, AnnData's booleans
    Handle x, raw, embedding, obsIndex;
    /// One categorical obs column: its codes so far and its categories (grown block by block).
    struct Categorical {
        std::string name;
        Handle codes;
        std::vector<std::string> categories;
        std::map<std::string, int32_t> codeOf;
    };
    std::vector<Categorical> categorical;
    std::vector<std::pair<std::string, Handle> > flags;
    bool started = false;

    explicit State(const std::string& p) : path(p), file(p) {}

    /// Throws InputError saying what HDF5 failed to do when `status` is negative.
    template <typename T>
    T check(T status, const std::string& what) const {
        if (status < 0)
            throw InputError(path + ": HDF5 could not " + what +
                             " (is the disk full or the folder read-only?)");
        return status;
    }
    Handle group(hid_t parent, const std::string& name, const char* type, const char* version) {
        Handle g(check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "create the group " + name),
                 H5Gclose);
        encode(g.id(), type, version);
        return g;
    }
    void stringAttribute(hid_t object, const char* name, const std::string& value) {
        Handle space(H5Screate(H5S_SCALAR), H5Sclose);
        Handle a(check(H5Acreate2(object, name, text.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT),
                       std::string("write the attribute ") + name),
                 H5Aclose);
        const char* c = value.c_str();
        check(H5Awrite(a.id(), text.id(), &c), std::string("write the attribute ") + name);
    }
    void stringsAttribute(hid_t object, const char* name, const std::vector<std::string>& values) {
        const hsize_t n = values.size();
        Handle space(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL), H5Sclose);
        Handle a(check(H5Acreate2(object, name, text.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT),
                       std::string("write the attribute ") + name),
                 H5Aclose);
        if (n == 0) return;
        std::vector<const char*> c;
        for (const std::string& v : values) c.push_back(v.c_str());
        check(H5Awrite(a.id(), text.id(), c.data()), std::string("write the attribute ") + name);
    }
    void boolAttribute(hid_t object, const char* name, bool value) {
        Handle space(H5Screate(H5S_SCALAR), H5Sclose);
        Handle a(check(H5Acreate2(object, name, flag.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT),
                       std::string("write the attribute ") + name),
                 H5Aclose);
        const int8_t v = value ? 1 : 0;
        check(H5Awrite(a.id(), flag.id(), &v), std::string("write the attribute ") + name);
    }
    void encode(hid_t object, const char* type, const char* version) {
        stringAttribute(object, "encoding-type", type);
        stringAttribute(object, "encoding-version", version);
    }
    /// A dataset of `cols` columns (0: one-dimensional) whose rows grow, chunked by rows.
    Handle growing(hid_t parent, const std::string& name, hid_t type, size_t cols,
                   size_t elementBytes, const char* encoding) {
        const int rank = cols ? 2 : 1;
        const hsize_t dims[2] = {0, cols}, maxDims[2] = {H5S_UNLIMITED, cols};
        const hsize_t chunk[2] = {chunkRows(elementBytes * std::max<size_t>(cols, 1)),
                                  std::max<hsize_t>(cols, 1)};
        Handle space(H5Screate_simple(rank, dims, maxDims), H5Sclose);
        Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        check(H5Pset_chunk(plist.id(), rank, chunk), "chunk " + name);
        Handle d(check(H5Dcreate2(parent, name.c_str(), type, space.id(), H5P_DEFAULT, plist.id(),
                                  H5P_DEFAULT),
                       "create " + name),
                 H5Dclose);
        encode(d.id(), encoding, "0.2.0");
        return d;
    }
    /// Appends `n` rows of `memType` values to a growing dataset.
    void appendRows(const Handle& d, hid_t memType, const void* data, hsize_t n, size_t cols,
                    const std::string& what) {
        if (n == 0) return;
        const int rank = cols ? 2 : 1;
        const hsize_t size[2] = {rows + n, cols};
        check(H5Dset_extent(d.id(), size), "grow " + what);
        Handle fileSpace(H5Dget_space(d.id()), H5Sclose);
        const hsize_t start[2] = {rows, 0}, count[2] = {n, cols};
        check(H5Sselect_hyperslab(fileSpace.id(), H5S_SELECT_SET, start, nullptr, count, nullptr),
              "select rows of " + what);
        Handle memSpace(H5Screate_simple(rank, count, nullptr), H5Sclose);
        check(H5Dwrite(d.id(), memType, memSpace.id(), fileSpace.id(), H5P_DEFAULT, data),
              "write " + what);
    }
    /// A one-dimensional dataset of `n` values of `type` (AnnData's `encoding`) at once.
    void fixed(hid_t parent, const std::string& name, hid_t type, const char* encoding, hsize_t n,
               const void* data) {
        Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
        Handle d(check(H5Dcreate2(parent, name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       "create " + name),
                 H5Dclose);
        encode(d.id(), encoding, "0.2.0");
        if (n) check(H5Dwrite(d.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write " + name);
    }
    /// A string array.
    void strings(hid_t parent, const std::string& name, const std::vector<std::string>& values) {
        std::vector<const char*> c;
        for (const std::string& v : values) c.push_back(v.c_str());
        fixed(parent, name, text.id(), "string-array", c.size(), c.data());
    }
    /// An array of booleans (any non-zero byte is true).
    void flagsDataset(hid_t parent, const std::string& name, const std::vector<uint8_t>& values) {
        std::vector<int8_t> v(values.size());
        for (size_t i = 0; i < v.size(); ++i) v[i] = values[i] ? 1 : 0;
        fixed(parent, name, flag.id(), "array", v.size(), v.data());
    }
};

H5adWriter::H5adWriter(const std::string& path, AnnDataVariables variables)
    : m(std::make_unique<State>(path)) {
    State& s = *m;
    const size_t n = variables.names.size();
    if (variables.markers.size() != n || variables.embedded.size() != n)
        throw InputError(path +
                         ": the variables' names, markers and embedded flags differ in count");
    s.variables = n;
    // Errors are reported by the calls' results, not printed by HDF5.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    s.h5 = Handle(
        s.check(H5Fcreate(s.file.temporaryPath().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                "create the file"),
        H5Fclose);
    s.text = Handle(H5Tcopy(H5T_C_S1), H5Tclose);
    s.check(H5Tset_size(s.text.id(), H5T_VARIABLE), "make a string type");
    s.check(H5Tset_cset(s.text.id(), H5T_CSET_UTF8), "make a string type");
    // AnnData's (h5py's) booleans: an 8-bit enumeration of FALSE and TRUE.
    s.flag = Handle(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
    const int8_t no = 0, yes = 1;
    s.check(H5Tenum_insert(s.flag.id(), "FALSE", &no), "make a boolean type");
    s.check(H5Tenum_insert(s.flag.id(), "TRUE", &yes), "make a boolean type");

    const hid_t root = s.h5.id();
    s.encode(root, "anndata", "0.1.0");
    Handle var = s.group(root, "var", "dataframe", "0.2.0");
    s.stringAttribute(var.id(), "_index", "_index");
    s.stringsAttribute(var.id(), "column-order", {"marker", "embedded"});
    s.strings(var.id(), "_index", uniqueNames(variables.names));
    s.strings(var.id(), "marker", variables.markers);
    s.flagsDataset(var.id(), "embedded", variables.embedded);
    s.x = s.growing(root, "X", H5T_IEEE_F32LE, n, sizeof(float), "array");
    Handle layers = s.group(root, "layers", "dict", "0.1.0");
    s.raw = s.growing(layers.id(), "raw", H5T_IEEE_F32LE, n, sizeof(float), "array");
    Handle obsm = s.group(root, "obsm", "dict", "0.1.0");
    s.embedding = s.growing(obsm.id(), "X_embedsom", H5T_IEEE_F32LE, 2, sizeof(float), "array");
    for (const char* empty : {"varm", "obsp", "varp", "uns"}) s.group(root, empty, "dict", "0.1.0");
}

H5adWriter::~H5adWriter() = default;

void H5adWriter::append(const AnnDataBlock& block) {
    State& s = *m;
    const size_t n = block.x ? block.x->rows : 0;
    const auto fits = [&](const Matrix* mat, size_t cols) {
        return mat && mat->rows == n && mat->cols == cols;
    };
    if (!fits(block.x, s.variables) || !fits(block.raw, s.variables) || !fits(block.embedding, 2))
        throw InputError(s.path + ": a block's values, raw values and coordinates do not fit " +
                         std::to_string(s.variables) + " channels");
    if (!s.started) {
        // The obs columns are those of the first block: categories, then flags.
        Handle obs = s.group(s.h5.id(), "obs", "dataframe", "0.2.0");
        s.stringAttribute(obs.id(), "_index", "_index");
        std::vector<std::string> order;
        std::set<std::string> taken = {"_index"};
        const auto columnName = [&](const std::string& name) {
            std::string c = elementName(name);
            for (int k = 2; !taken.insert(c).second; ++k)
                c = elementName(name) + "_" + std::to_string(k);
            order.push_back(c);
            return c;
        };
        s.obsIndex = s.growing(obs.id(), "_index", s.text.id(), 0, sizeof(char*), "string-array");
        for (const LabelColumn* l : block.categorical) {
            State::Categorical c;
            c.name = columnName(l->name);
            Handle g = s.group(obs.id(), c.name, "categorical", "0.2.0");
            s.boolAttribute(g.id(), "ordered", false);
            c.codes = s.growing(g.id(), "codes", H5T_STD_I32LE, 0, sizeof(int32_t), "array");
            s.categorical.push_back(std::move(c));
        }
        for (const auto& [name, values] : block.flags) {
            const std::string c = columnName(name);
            s.flags.emplace_back(c, s.growing(obs.id(), c, s.flag.id(), 0, 1, "array"));
        }
        s.stringsAttribute(obs.id(), "column-order", order);
        s.started = true;
    }
    if (block.categorical.size() != s.categorical.size() || block.flags.size() != s.flags.size())
        throw InputError(s.path + ": a block's obs columns differ from the first block's");
    s.appendRows(s.x, H5T_NATIVE_FLOAT, block.x->data(), n, s.variables, "X");
    s.appendRows(s.raw, H5T_NATIVE_FLOAT, block.raw->data(), n, s.variables, "layers/raw");
    s.appendRows(s.embedding, H5T_NATIVE_FLOAT, block.embedding->data(), n, 2, "obsm/X_embedsom");
    std::vector<std::string> index(n);
    std::vector<const char*> indexText(n);
    for (size_t i = 0; i < n; ++i) {
        index[i] = std::to_string(s.rows + i);
        indexText[i] = index[i].c_str();
    }
    s.appendRows(s.obsIndex, s.text.id(), indexText.data(), n, 0, "obs/_index");
    for (size_t c = 0; c < block.categorical.size(); ++c) {
        const LabelColumn& l = *block.categorical[c];
        State::Categorical& column = s.categorical[c];
        if (l.codes.size() != n)
            throw InputError(s.path + ": the column " + l.name + " has " +
                             std::to_string(l.codes.size()) + " values for " + std::to_string(n) +
                             " events");
        // This block's codes in the file's categories, which take its new names in order.
        std::vector<int32_t> into(l.categories.size());
        for (size_t k = 0; k < l.categories.size(); ++k) {
            const auto [it, added] = column.codeOf.emplace(
                l.categories[k], static_cast<int32_t>(column.categories.size()));
            if (added) column.categories.push_back(l.categories[k]);
            into[k] = it->second;
        }
        std::vector<int32_t> codes(n);
        for (size_t i = 0; i < n; ++i) {
            const int32_t code = l.codes[i];
            codes[i] = code >= 0 && size_t(code) < into.size() ? into[size_t(code)] : -1;
        }
        s.appendRows(column.codes, H5T_NATIVE_INT32, codes.data(), n, 0,
                     "obs/" + column.name + "/codes");
    }
    for (size_t c = 0; c < block.flags.size(); ++c) {
        const std::vector<uint8_t>& values = *block.flags[c].second;
        if (values.size() != n)
            throw InputError(s.path + ": the column " + block.flags[c].first + " has " +
                             std::to_string(values.size()) + " values for " + std::to_string(n) +
                             " events");
        std::vector<int8_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = values[i] ? 1 : 0;
        s.appendRows(s.flags[c].second, s.flag.id(), v.data(), n, 0, "obs/" + s.flags[c].first);
    }
    s.rows += n;
}

void H5adWriter::commit() {
    State& s = *m;
    if (!s.started) throw InputError("cannot write '" + s.path + "': no events");
    for (State::Categorical& c : s.categorical) {
        Handle g(s.check(H5Gopen2(s.h5.id(), ("obs/" + c.name).c_str(), H5P_DEFAULT),
                         "open obs/" + c.name),
                 H5Gclose);
        s.strings(g.id(), "categories", c.categories);
    }
    // Everything is closed before the rename, so that the file on disk is complete.
    s.x.reset(), s.raw.reset(), s.embedding.reset(), s.obsIndex.reset();
    for (State::Categorical& c : s.categorical) c.codes.reset();
    for (auto& f : s.flags) f.second.reset();
    s.check(H5Fflush(s.h5.id(), H5F_SCOPE_GLOBAL), "flush the file");
    s.h5.reset();
    s.file.commit();
}

bool canWriteH5ad() {
    return true;
}

#endif

}  // namespace sepal::io
