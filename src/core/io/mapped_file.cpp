#include "core/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/common/error.h"

namespace sepal::io {

MappedFile::MappedFile(const std::string& path, bool populate) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw InputError("cannot open '" + path + "': " + std::strerror(errno) +
                         " (check the path and the permissions)");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError("cannot read '" + path + "': not a regular file");
    }
    m_size = static_cast<size_t>(st.st_size);
    if (m_size > 0) {
        void* p =
            ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
        if (p == MAP_FAILED) {
            const std::string why = std::strerror(errno);
            ::close(fd);
            throw InputError("cannot map '" + path + "' into memory: " + why);
        }
        ::madvise(p, m_size, MADV_SEQUENTIAL);
        m_data = static_cast<const uint8_t*>(p);
    }
    ::close(fd);
}

MappedFile::~MappedFile() {
    if (m_data) ::munmap(const_cast<uint8_t*>(m_data), m_size);
}

void MappedFile::release(size_t offset, size_t length) const {
    if (!m_data || offset >= m_size) return;
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    const size_t begin = (offset + page - 1) / page * page;
    const size_t end = std::min(m_size, offset + length) / page * page;
    if (end > begin) ::madvise(const_cast<uint8_t*>(m_data) + begin, end - begin, MADV_DONTNEED);
}

}  // namespace sepal::io
