#include "core/io/fcs_decode.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include <sys/mman.h>

#include "core/common/error.h"

namespace sepal::io::fcs {

namespace {

constexpr size_t kBlockRows = 1 << 14;

/// How a stored value becomes the value we hand out.
struct Scale {
    enum Kind { kIdentity, kLinear, kLog } kind = kIdentity;
    double factor = 1;   // linear: value * factor
    double decades = 0;  // log: offset * 10^(decades * value / range)
    double offset = 1;
    double range = 1;
};

Scale scaleFor(const Parameter& p, bool raw) {
    Scale s;
    if (raw) return s;
    if (p.type == 'I' && p.logDecades > 0) {
        s.kind = Scale::kLog;
        s.decades = p.logDecades;
        s.offset = p.logOffset;
        s.range = p.range > 0 ? p.range : std::ldexp(1.0, std::min(p.bits, 63));
        return s;
    }
    // Time stays in its ticks (the table's channel carries $TIMESTEP): seconds are
    // ticks x $TIMESTEP, and a float cannot hold both exactly.
    const double factor = 1.0 / p.gain;
    if (factor != 1) {
        s.kind = Scale::kLinear;
        s.factor = factor;
    }
    return s;
}

inline float applyScale(const Scale& s, double v) {
    switch (s.kind) {
        case Scale::kIdentity:
            return static_cast<float>(v);
        case Scale::kLinear:
            return static_cast<float>(v * s.factor);
        case Scale::kLog:
            return static_cast<float>(s.offset * std::pow(10.0, s.decades * v / s.range));
    }
    return static_cast<float>(v);
}

inline uint64_t loadUnsigned(const uint8_t* p, int bytes, bool little) {
    uint64_t v = 0;
    if (little)
        for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    else
        for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

inline uint16_t load16(const uint8_t* p, bool little) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return little == (std::endian::native == std::endian::little) ? v : __builtin_bswap16(v);
}

inline uint32_t load32(const uint8_t* p, bool little) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return little == (std::endian::native == std::endian::little) ? v : __builtin_bswap32(v);
}

inline uint64_t load64(const uint8_t* p, bool little) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return little == (std::endian::native == std::endian::little) ? v : __builtin_bswap64(v);
}

/// Every parameter float32 in one byte order: a straight copy (with a byte swap when needed).
void decodeAllFloat(const Dataset& ds, const uint8_t* data, Matrix& out) {
    const size_t total = ds.events * ds.parameters.size();
    float* dst = out.data();
    const bool swap = ds.littleEndian != (std::endian::native == std::endian::little);
    const size_t block = kBlockRows * ds.parameters.size();
    const long blocks = static_cast<long>((total + block - 1) / block);
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (long b = 0; b < blocks; ++b) {
        const size_t begin = static_cast<size_t>(b) * block;
        const size_t end = std::min(total, begin + block);
        if (!swap) {
            std::memcpy(dst + begin, data + begin * 4, (end - begin) * 4);
        } else {
            const uint8_t* src = data + begin * 4;
            for (size_t i = begin; i < end; ++i, src += 4) {
                uint32_t v;
                std::memcpy(&v, src, 4);
                v = __builtin_bswap32(v);
                std::memcpy(dst + i, &v, 4);
            }
        }
    }
}

/// Integers of one width (1, 2 or 4 bytes) without log scaling: a row-major pass per block.
template <typename T, bool Swap>
void decodeUniformIntegers(const Dataset& ds, const uint8_t* data, const std::vector<Scale>& scales,
                           Matrix& out) {
    const size_t cols = ds.parameters.size();
    std::vector<T> masks(cols);
    std::vector<float> factors(cols);
    for (size_t c = 0; c < cols; ++c) {
        masks[c] = static_cast<T>(ds.parameters[c].mask);
        factors[c] = static_cast<float>(scales[c].factor);
    }
    const long blocks = static_cast<long>((ds.events + kBlockRows - 1) / kBlockRows);
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (long b = 0; b < blocks; ++b) {
        const size_t begin = static_cast<size_t>(b) * kBlockRows;
        const size_t end = std::min(ds.events, begin + kBlockRows);
        const uint8_t* src = data + begin * cols * sizeof(T);
        float* dst = out.data() + begin * cols;
        const T* mask = masks.data();
        const float* factor = factors.data();
        for (size_t r = begin; r < end; ++r, src += cols * sizeof(T), dst += cols) {
            for (size_t c = 0; c < cols; ++c) {
                T v;
                std::memcpy(&v, src + c * sizeof(T), sizeof(T));
                if constexpr (Swap && sizeof(T) == 2) v = __builtin_bswap16(v);
                if constexpr (Swap && sizeof(T) == 4) v = __builtin_bswap32(v);
                dst[c] = static_cast<float>(v & mask[c]) * factor[c];
            }
        }
    }
}

/// decodeUniformIntegers with the byte swap decided once, outside the loops.
template <typename T>
void decodeUniform(const Dataset& ds, const uint8_t* data, const std::vector<Scale>& scales,
                   Matrix& out) {
    if (ds.littleEndian == (std::endian::native == std::endian::little))
        decodeUniformIntegers<T, false>(ds, data, scales, out);
    else
        decodeUniformIntegers<T, true>(ds, data, scales, out);
}

/// Any mix of widths and types: one parameter at a time within each block of events.
void decodeGeneral(const Dataset& ds, const uint8_t* data, const std::vector<Scale>& scales,
                   Matrix& out) {
    const size_t cols = ds.parameters.size();
    const long blocks = static_cast<long>((ds.events + kBlockRows - 1) / kBlockRows);
    const bool little = ds.littleEndian;
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (long b = 0; b < blocks; ++b) {
        const size_t begin = static_cast<size_t>(b) * kBlockRows;
        const size_t end = std::min(ds.events, begin + kBlockRows);
        for (size_t c = 0; c < cols; ++c) {
            const Parameter& p = ds.parameters[c];
            const Scale& s = scales[c];
            const uint8_t* src = data + begin * ds.eventBytes + p.offset;
            float* dst = out.data() + begin * cols + c;
            const size_t stride = ds.eventBytes;
            if (p.type == 'F') {
                for (size_t r = begin; r < end; ++r, src += stride, dst += cols) {
                    const uint32_t u = load32(src, little);
                    float f;
                    std::memcpy(&f, &u, 4);
                    *dst = s.kind == Scale::kIdentity ? f : applyScale(s, f);
                }
            } else if (p.type == 'D') {
                for (size_t r = begin; r < end; ++r, src += stride, dst += cols) {
                    const uint64_t u = load64(src, little);
                    double d;
                    std::memcpy(&d, &u, 8);
                    *dst = applyScale(s, d);
                }
            } else if (p.bytes == 2) {
                const auto mask = static_cast<uint16_t>(p.mask);
                for (size_t r = begin; r < end; ++r, src += stride, dst += cols)
                    *dst = applyScale(s, load16(src, little) & mask);
            } else if (p.bytes == 4) {
                const auto mask = static_cast<uint32_t>(p.mask);
                for (size_t r = begin; r < end; ++r, src += stride, dst += cols)
                    *dst = applyScale(s, load32(src, little) & mask);
            } else {
                for (size_t r = begin; r < end; ++r, src += stride, dst += cols)
                    *dst = applyScale(
                        s, static_cast<double>(loadUnsigned(src, p.bytes, little) & p.mask));
            }
        }
    }
}

/// An events x cols matrix whose memory is faulted in by both threads before the vector zeroes
/// it: on virtual machines a gigabyte of first-touch page faults costs more than decoding it.
Matrix allocateEvents(size_t rows, size_t cols) {
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    const size_t count = rows * cols;
    m.values.reserve(count);
    constexpr size_t kPage = 4096, kChunk = size_t(16) << 20;
    const size_t bytes = count * sizeof(float);
    if (bytes >= 4 * kChunk) {
        auto* base = reinterpret_cast<uint8_t*>(m.values.data());
        const long chunks = static_cast<long>((bytes + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static)
        for (long i = 0; i < chunks; ++i) {
            uint8_t* begin = base + static_cast<size_t>(i) * kChunk;
            const size_t length = std::min(kChunk, bytes - static_cast<size_t>(i) * kChunk);
            const auto first = (reinterpret_cast<uintptr_t>(begin) + kPage - 1) & ~(kPage - 1);
            const auto last = (reinterpret_cast<uintptr_t>(begin) + length) & ~(kPage - 1);
#ifdef MADV_POPULATE_WRITE
            if (last > first &&
                madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE) == 0)
                continue;
#endif
            // Older kernels: touch one byte per page of the reserved (not yet used) storage.
            for (size_t off = 0; off < length; off += kPage) begin[off] = 0;
        }
    }
    m.values.resize(count);
    return m;
}

[[noreturn]] void dataFailure(const std::string& where, uint64_t offset, const std::string& why) {
    throw InputError(where + ": DATA at byte " + std::to_string(offset) + ": " + why);
}

double parseAsciiNumber(const char* b, const char* e, const std::string& where, uint64_t offset) {
    while (b < e && (*b == ' ' || *b == '\t' || *b == '\r' || *b == '\n')) ++b;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) --e;
    if (b < e && *b == '+') ++b;
    double v = 0;
    auto [p, ec] = std::from_chars(b, e, v);
    if (b == e) return 0;  // an all-blank fixed-width field
    if (ec != std::errc() || p != e)
        dataFailure(where, offset, "'" + std::string(b, e) + "' is not a number in ASCII data");
    return v;
}

void decodeAscii(const Dataset& ds, const uint8_t* data, const std::vector<Scale>& scales,
                 Matrix& out, const std::string& where) {
    const size_t cols = ds.parameters.size();
    const auto* text = reinterpret_cast<const char*>(data);
    if (!ds.delimitedAscii) {
        for (size_t r = 0; r < ds.events; ++r) {
            size_t pos = r * ds.eventBytes;
            for (size_t c = 0; c < cols; ++c) {
                const auto w = static_cast<size_t>(ds.parameters[c].bytes);
                out.at(r, c) = applyScale(scales[c], parseAsciiNumber(text + pos, text + pos + w,
                                                                      where, ds.dataBegin + pos));
                pos += w;
            }
        }
        return;
    }
    size_t pos = 0, index = 0;
    const size_t n = ds.dataLength, total = ds.events * cols;
    auto separator = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '\0';
    };
    while (index < total) {
        while (pos < n && separator(text[pos])) ++pos;
        if (pos >= n)
            dataFailure(where, ds.dataBegin + pos,
                        "ASCII data ends after " + std::to_string(index) + " of " +
                            std::to_string(total) + " values");
        const size_t start = pos;
        while (pos < n && !separator(text[pos])) ++pos;
        out.values[index] =
            applyScale(scales[index % cols],
                       parseAsciiNumber(text + start, text + pos, where, ds.dataBegin + start));
        ++index;
    }
}

}  // namespace

Matrix decodeEvents(const Dataset& ds, std::span<const uint8_t> file, bool raw,
                    const std::string& where) {
    if (!ds.dataError.empty()) throw InputError(where + ": " + ds.dataError);
    const size_t cols = ds.parameters.size();
    if (ds.events == 0) return Matrix(0, cols);
    Matrix out = allocateEvents(ds.events, cols);
    if (ds.dataBegin > file.size() || ds.dataLength > file.size() - ds.dataBegin)
        dataFailure(where, ds.dataBegin, "the DATA segment runs past the end of the file");
    const uint8_t* data = file.data() + ds.dataBegin;
    std::vector<Scale> scales;
    for (const Parameter& p : ds.parameters) scales.push_back(scaleFor(p, raw));
    if (ds.datatype == 'A') {
        decodeAscii(ds, data, scales, out, where);
        return out;
    }
    const bool allFloat = std::all_of(ds.parameters.begin(), ds.parameters.end(),
                                      [](const Parameter& p) { return p.type == 'F'; });
    if (allFloat) {
        decodeAllFloat(ds, data, out);
        for (size_t c = 0; c < cols; ++c) {
            if (scales[c].kind == Scale::kIdentity) continue;
            const double f = scales[c].factor;
            for (size_t r = 0; r < ds.events; ++r)
                out.at(r, c) = static_cast<float>(out.at(r, c) * f);
        }
        return out;
    }
    const bool uniformIntegers =
        std::all_of(ds.parameters.begin(), ds.parameters.end(),
                    [&](const Parameter& p) {
                        return p.type == 'I' && p.bytes == ds.parameters[0].bytes;
                    }) &&
        std::none_of(scales.begin(), scales.end(),
                     [](const Scale& s) { return s.kind == Scale::kLog; });
    if (uniformIntegers && ds.parameters[0].bytes == 1)
        decodeUniform<uint8_t>(ds, data, scales, out);
    else if (uniformIntegers && ds.parameters[0].bytes == 2)
        decodeUniform<uint16_t>(ds, data, scales, out);
    else if (uniformIntegers && ds.parameters[0].bytes == 4)
        decodeUniform<uint32_t>(ds, data, scales, out);
    else
        decodeGeneral(ds, data, scales, out);
    return out;
}

}  // namespace sepal::io::fcs
