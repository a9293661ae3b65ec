#include "tls.h"

#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>

namespace counterattack::server {
namespace {

std::string openssl_error(const std::string& what) {
  const unsigned long e = ERR_get_error();
  char buf[256] = {};
  if (e) ERR_error_string_n(e, buf, sizeof buf);
  return what + (e ? std::string(": ") + buf : std::string());
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct FileClose {
  void operator()(FILE* f) const { std::fclose(f); }
};

bool add_ext(X509* x, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, x, x, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  const int ok = X509_add_ext(x, ext, -1);
  X509_EXTENSION_free(ext);
  return ok == 1;
}

// Opens a new file with the given mode bits (the key must not be world-readable).
std::unique_ptr<FILE, FileClose> create_file(const std::string& path, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return nullptr;
  FILE* f = ::fdopen(fd, "w");
  if (!f) ::close(fd);
  return std::unique_ptr<FILE, FileClose>(f);
}

}  // namespace

bool write_self_signed(const std::string& cert_path, const std::string& key_path, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& p : {cert_path, key_path}) {
    const auto dir = fs::path(p).parent_path();
    if (!dir.empty()) fs::create_directories(dir, ec);
  }
  std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_EC_gen("P-256"));
  if (!key) return error = openssl_error("cannot generate a key"), false;
  std::unique_ptr<X509, X509Free> x(X509_new());
  if (!x) return error = openssl_error("cannot make a certificate"), false;
  X509_set_version(x.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return error = openssl_error("no random serial"), false;
  serial[0] &= 0x7F;  // a positive serial number
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(x.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x.get()), 60L * 60 * 24 * 3650);
  X509_set_pubkey(x.get(), key.get());
  X509_NAME* name = X509_get_subject_name(x.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("counterattackd"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(x.get(), name);
  if (!add_ext(x.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_ext(x.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_ext(x.get(), NID_ext_key_usage, "serverAuth") ||
      !add_ext(x.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1")) {
    return error = openssl_error("cannot add certificate extensions"), false;
  }
  if (X509_sign(x.get(), key.get(), EVP_sha256()) <= 0) return error = openssl_error("cannot sign the certificate"), false;

  // Written under temporary names and renamed, so a crash leaves no half file.
  const std::string key_tmp = key_path + ".tmp", cert_tmp = cert_path + ".tmp";
  {
    auto f = create_file(key_tmp, 0600);
    if (!f || PEM_write_PrivateKey(f.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
      return error = "cannot write " + key_tmp, false;
    }
  }
  {
    auto f = create_file(cert_tmp, 0644);
    if (!f || PEM_write_X509(f.get(), x.get()) != 1) return error = "cannot write " + cert_tmp, false;
  }
  fs::rename(key_tmp, key_path, ec);
  if (!ec) fs::rename(cert_tmp, cert_path, ec);
  if (ec) return error = "cannot install the certificate: " + ec.message(), false;
  return true;
}

bool init_tls_context(boost::asio::ssl::context& ctx, const std::string& cert_path, const std::string& key_path,
                      std::string& error) {
  namespace ssl = boost::asio::ssl;
  ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                  ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  ctx.use_certificate_chain_file(cert_path, ec);
  if (ec) return error = "cannot load certificate " + cert_path + ": " + ec.message(), false;
  ctx.use_private_key_file(key_path, ssl::context::pem, ec);
  if (ec) return error = "cannot load key " + key_path + ": " + ec.message(), false;
  if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
    return error = "the key " + key_path + " does not match the certificate " + cert_path, false;
  }
  return true;
}

std::string certificate_fingerprint(boost::asio::ssl::context& ctx) {
  X509* cert = SSL_CTX_get0_certificate(ctx.native_handle());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!cert || X509_digest(cert, EVP_sha256(), digest, &size) != 1) return "";
  static const char* hex = "0123456789abcdef";  // as the client shows it
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    if (i) out += ':';
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace counterattack::server
