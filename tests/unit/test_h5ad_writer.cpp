// The AnnData writer's refusals: a file that cannot be made, blocks that do not fit, and no
// events; none leaves a file behind. (tests/cli/anndata_export.sh reads its files with anndata.)

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/h5ad_writer.h"
#include "fresh_dir.h"

#ifdef SEPAL_HAS_HDF5
#include <hdf5.h>
#endif

namespace sepal::io {
namespace {

AnnDataVariables twoChannels() {
    return {{"Nd142Di", "Nd142Di"}, {"CD4", "CD4 again"}, {1, 0}};
}

std::string scratch(const std::string& name) {
    static const std::filesystem::path dir = test::freshDir("h5ad");
    return (dir / name).string();
}

TEST(H5adWriter, AnUnwritableFolderIsNamed) {
    if (!canWriteH5ad()) GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev)";
    try {
        H5adWriter w("/proc/sepal-unwritable/x.h5ad", twoChannels());
        FAIL() << "a file was started in /proc";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("/proc/sepal-unwritable"), std::string::npos)
            << e.what();
    }
}

TEST(H5adWriter, ABlockThatDoesNotFitIsRefusedAndNothingIsLeft) {
    if (!canWriteH5ad()) GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev)";
    const std::string path = scratch("misfit.h5ad");
    std::filesystem::remove(path);
    {
        H5adWriter w(path, twoChannels());
        Matrix x(3, 2), raw(3, 3), xy(3, 2);
        EXPECT_THROW(w.append({&x, &raw, &xy, {}, {}}), InputError);
        LabelColumn short_{"population", {"a"}, {0, 0}};
        Matrix rawOk(3, 2);
        EXPECT_THROW(w.append({&x, &rawOk, &xy, {&short_}, {}}), InputError);
    }
    EXPECT_FALSE(std::filesystem::exists(path));
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
        EXPECT_EQ(entry.path().filename().string().find("misfit.h5ad.tmp"), std::string::npos)
            << "a temporary file was left: " << entry.path();
}

TEST(H5adWriter, NoEventsIsRefusedAtCommit) {
    if (!canWriteH5ad()) GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev)";
    const std::string path = scratch("empty.h5ad");
    H5adWriter w(path, twoChannels());
    EXPECT_THROW(w.commit(), InputError);
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(H5adWriter, CategoriesGrowFromBlockToBlock) {
    if (!canWriteH5ad()) GTEST_SKIP() << "this build has no HDF5 (libhdf5-dev)";
    const std::string path = scratch("grow.h5ad");
    H5adWriter w(path, twoChannels());
    Matrix x(2, 2), raw(2, 2), xy(2, 2);
    LabelColumn first{"population", {"T cells"}, {0, -1}};
    // The second block's "T cells" is the file's category 0, its new "B cells" category 1.
    LabelColumn second{"population", {"B cells", "T cells"}, {1, 0}};
    w.append({&x, &raw, &xy, {&first}, {}});
    w.append({&x, &raw, &xy, {&second}, {}});
    // A block with another set of columns is refused.
    EXPECT_THROW(w.append({&x, &raw, &xy, {}, {}}), InputError);
    w.commit();
#ifdef SEPAL_HAS_HDF5
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    int32_t codes[4] = {9, 9, 9, 9};
    const hid_t d = H5Dopen2(file, "obs/population/codes", H5P_DEFAULT);
    ASSERT_GE(H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, codes), 0);
    EXPECT_EQ(std::vector<int32_t>(codes, codes + 4), (std::vector<int32_t>{0, -1, 0, 1}));
    const hid_t c = H5Dopen2(file, "obs/population/categories", H5P_DEFAULT);
    const hid_t text = H5Tcopy(H5T_C_S1);
    H5Tset_size(text, H5T_VARIABLE);
    H5Tset_cset(text, H5T_CSET_UTF8);
    char* names[2] = {nullptr, nullptr};
    ASSERT_GE(H5Dread(c, text, H5S_ALL, H5S_ALL, H5P_DEFAULT, names), 0);
    EXPECT_STREQ(names[0], "T cells");
    EXPECT_STREQ(names[1], "B cells");
    const hid_t space = H5Dget_space(c);
    H5Dvlen_reclaim(text, space, H5P_DEFAULT, names);
    H5Sclose(space), H5Tclose(text), H5Dclose(c), H5Dclose(d), H5Fclose(file);
#endif
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace sepal::io
