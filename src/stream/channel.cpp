// Stub bodies: the public API builds while the implementation lands.
#include "interlace/stream/channel.hpp"

namespace interlace::stream {

namespace {
[[noreturn]] void todo(const char* what) {
  throw_error(Errc::unsupported, std::string("stream: ") + what + " is not implemented yet");
}
}  // namespace

SendChannel::SendChannel(const Communicator&, int, int, size_t, Datatype, size_t) { todo("SendChannel"); }
SendChannel::~SendChannel() = default;
SendChannel& SendChannel::operator=(SendChannel&& o) noexcept { take(o); return *this; }
void SendChannel::push_n(const void*, size_t) { todo("push_n"); }
void SendChannel::flush() { todo("flush"); }
size_t SendChannel::count() const noexcept { return 0; }
size_t SendChannel::remaining() const noexcept { return 0; }
bool SendChannel::eager() const noexcept { return false; }
Datatype SendChannel::datatype() const noexcept { return Datatype::bytes; }
void SendChannel::make_room() { todo("push"); }
void SendChannel::packet_done() { todo("push"); }
void SendChannel::take(SendChannel& o) noexcept { cur_ = o.cur_; end_ = o.end_; esz_ = o.esz_; st_ = o.st_; o.st_ = nullptr; o.cur_ = o.end_ = nullptr; }
void SendChannel::release() noexcept {}

RecvChannel::RecvChannel(const Communicator&, int, int, size_t, Datatype, size_t) { todo("RecvChannel"); }
RecvChannel::~RecvChannel() = default;
RecvChannel& RecvChannel::operator=(RecvChannel&& o) noexcept { take(o); return *this; }
void RecvChannel::pop_n(void*, size_t) { todo("pop_n"); }
size_t RecvChannel::count() const noexcept { return 0; }
size_t RecvChannel::remaining() const noexcept { return 0; }
Datatype RecvChannel::datatype() const noexcept { return Datatype::bytes; }
void RecvChannel::refill() { todo("pop"); }
void RecvChannel::take(RecvChannel& o) noexcept { cur_ = o.cur_; end_ = o.end_; esz_ = o.esz_; st_ = o.st_; o.st_ = nullptr; o.cur_ = o.end_ = nullptr; }
void RecvChannel::release() noexcept {}

}  // namespace interlace::stream
