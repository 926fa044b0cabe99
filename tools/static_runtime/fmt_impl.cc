// fmt's compiled part, built from the implementation header Debian installs
// (fmt/format-inl.h), for the executables that link their C++ runtime
// statically (tools/static_runtime.cmake). Debian ships libfmt only as a
// shared library, and libfmt.so would load libstdc++.so into analyze anyway.
//
// fmt compiles the same header into libfmt.so (its src/format.cc) with
// explicit instantiations of the templates the headers declare but do not
// define inline; these are the char ones of release 9.1 (the project formats
// no wide strings). One missing is a link error of analyze, never a
// silently different build.
#include "fmt/format-inl.h"

#if FMT_VERSION / 100 != 901
#error \
    "fmt_impl.cc instantiates fmt 9.1's templates; check them for this release"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept
    -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept
    -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref)
    -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API void buffer<char>::append(const char*, const char*);
template FMT_API void vformat_to(buffer<char>&, string_view,
                                 basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                                 locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
