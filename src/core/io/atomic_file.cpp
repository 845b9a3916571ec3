#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "core/common/error.h"
#include "core/io/temporary_files.h"

namespace sepal::io {

namespace {
std::string systemError() {
    return std::strerror(errno);
}

/// A streambuf that forwards to an AtomicFile in large chunks.
class AtomicBuffer : public std::streambuf {
  public:
    explicit AtomicBuffer(AtomicFile& file) : m_file(file), m_buffer(1 << 16) {
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    int sync() override {
        flushBuffer();
        return 0;
    }

  protected:
    int_type overflow(int_type c) override {
        flushBuffer();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (n >= static_cast<std::streamsize>(m_buffer.size())) {
            flushBuffer();
            m_file.write(s, static_cast<size_t>(n));
            return n;
        }
        return std::streambuf::xsputn(s, n);
    }

  private:
    void flushBuffer() {
        const auto n = static_cast<size_t>(pptr() - pbase());
        if (n > 0) m_file.write(pbase(), n);
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    AtomicFile& m_file;
    std::vector<char> m_buffer;
};
}  // namespace

AtomicFile::AtomicFile(const std::string& path) : m_path(path) {
    // The folders an output names are made (Export > Counts into a new folder).
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    std::error_code made;
    if (!folder.empty() && !std::filesystem::exists(folder, made)) {
        std::filesystem::create_directories(folder, made);
        if (made)
            throw InputError("cannot write '" + path + "': cannot make the folder " +
                             folder.string() + " (" + made.message() + ")");
    }
    removeStaleTemporaries(path);
    const int fd = createTemporary(path, m_temporary, m_slot);
    if (fd < 0)
        throw InputError("cannot write '" + path + "': " + systemError() +
                         " (check that the folder exists and is writable)");
    // mkstemp creates 0600; the finished file gets the usual permissions (0666 less the umask).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    m_file = fdopen(fd, "wb");
    if (!m_file) {
        const std::string why = systemError();
        ::close(fd);
        std::remove(m_temporary.c_str());
        forgetTemporary(m_slot);
        throw InputError("cannot write '" + path + "': " + why);
    }
}

AtomicFile::~AtomicFile() {
    if (m_file) std::fclose(m_file);
    if (!m_committed) std::remove(m_temporary.c_str());
    forgetTemporary(m_slot);
}

void AtomicFile::write(const void* data, size_t size) {
    if (!m_file) throw InputError("cannot write '" + m_path + "': the file is already closed");
    if (size > 0 && std::fwrite(data, 1, size, m_file) != size)
        throw InputError("cannot write '" + m_path + "': " + systemError() +
                         " (is the disk full?)");
}

void AtomicFile::writeAt(uint64_t offset, std::string_view bytes) {
    if (!m_file || std::fflush(m_file) != 0)
        throw InputError("cannot write '" + m_path + "': " + systemError());
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::pwrite(fileno(m_file), bytes.data() + done, bytes.size() - done,
                                   off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw InputError("cannot write '" + m_path + "': " + systemError() +
                             " (is the disk full?)");
        done += size_t(n);
    }
}

void AtomicFile::copyTo(AtomicFile& to, uint64_t offset) {
    if (!m_file || std::fflush(m_file) != 0)
        throw InputError("cannot write '" + m_path + "': " + systemError());
    // mkstemp opened the descriptor for reading too.
    std::vector<char> buffer(size_t(1) << 22);
    for (;;) {
        const ssize_t n = ::pread(fileno(m_file), buffer.data(), buffer.size(), off_t(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            throw InputError("cannot write '" + to.path() + "': reading back " + m_temporary +
                             " failed (" + systemError() + ")");
        if (n == 0) return;
        to.write(buffer.data(), size_t(n));
        offset += uint64_t(n);
    }
}

void AtomicFile::startWriteback() {
#ifdef __linux__
    if (!m_file || std::fflush(m_file) != 0) return;
    const off_t end = ::lseek(fileno(m_file), 0, SEEK_CUR);
    if (end <= off_t(m_writtenBack)) return;
    // Only starts the writing: the dirty pages of a machine with much memory would otherwise
    // wait for commit's fsync, the disk idle until then.
    if (::sync_file_range(fileno(m_file), off_t(m_writtenBack), end - off_t(m_writtenBack),
                          SYNC_FILE_RANGE_WRITE) == 0)
        m_writtenBack = uint64_t(end);
#endif
}

void AtomicFile::commit() {
    if (!m_file) throw InputError("cannot write '" + m_path + "': the file is already closed");
    const bool flushed = std::fflush(m_file) == 0 && fsync(fileno(m_file)) == 0;
    const std::string why = flushed ? std::string() : systemError();
    const bool closed = std::fclose(m_file) == 0;
    m_file = nullptr;
    if (!flushed || !closed)
        throw InputError("cannot write '" + m_path + "': " + (why.empty() ? systemError() : why) +
                         " (is the disk full?)");
    if (std::rename(m_temporary.c_str(), m_path.c_str()) != 0)
        throw InputError("cannot write '" + m_path +
                         "': renaming the temporary file failed: " + systemError());
    m_committed = true;
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& body) {
    AtomicFile file(path);
    {
        AtomicBuffer buffer(file);
        std::ostream out(&buffer);
        body(out);
        out.flush();
        if (!out) throw InputError("cannot write '" + path + "': the output stream failed");
    }
    file.commit();
}

}  // namespace sepal::io
