// One accepted connection on a Unix domain socket (see NioUnixServerChannel).
// Plumbing: a bot author never needs to touch it.
package unixsock;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.FileRegion;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.nio.AbstractNioByteChannel;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

public final class NioUnixChannel extends AbstractNioByteChannel {
  private final Config config = new Config();
  private volatile boolean inputShutdown;

  NioUnixChannel(Channel parent, SocketChannel ch) {
    super(parent, ch);
  }

  @Override
  protected SocketChannel javaChannel() {
    return (SocketChannel) super.javaChannel();
  }

  @Override
  public ChannelConfig config() {
    return config;
  }

  @Override
  public boolean isActive() {
    SocketChannel ch = javaChannel();
    return ch.isOpen() && ch.isConnected();
  }

  @Override
  protected SocketAddress localAddress0() {
    try {
      return javaChannel().getLocalAddress();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  protected SocketAddress remoteAddress0() {
    try {
      return javaChannel().getRemoteAddress();
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  protected boolean isInputShutdown0() {
    return inputShutdown;
  }

  @Override
  protected ChannelFuture shutdownInput() {
    ChannelPromise promise = newPromise();
    try {
      javaChannel().shutdownInput();
      inputShutdown = true;
      promise.setSuccess();
    } catch (Throwable t) {
      promise.setFailure(t);
    }
    return promise;
  }

  @Override
  protected void doBind(SocketAddress local) throws Exception {
    javaChannel().bind(local);
  }

  @Override
  protected boolean doConnect(SocketAddress remote, SocketAddress local) throws Exception {
    if (local != null) doBind(local);
    boolean connected = javaChannel().connect(remote);
    if (!connected) selectionKey().interestOps(SelectionKey.OP_CONNECT);
    return connected;
  }

  @Override
  protected void doFinishConnect() throws Exception {
    if (!javaChannel().finishConnect()) throw new IOException("connection not finished");
  }

  @Override
  protected void doDisconnect() throws Exception {
    doClose();
  }

  @Override
  protected void doClose() throws Exception {
    super.doClose();
    javaChannel().close();
  }

  @Override
  @SuppressWarnings("deprecation") // RecvByteBufAllocator.Handle: what Netty 4.1's own NIO channel uses
  protected int doReadBytes(ByteBuf buf) throws Exception {
    RecvByteBufAllocator.Handle handle = unsafe().recvBufAllocHandle();
    handle.attemptedBytesRead(buf.writableBytes());
    return buf.writeBytes(javaChannel(), handle.attemptedBytesRead());
  }

  @Override
  protected int doWriteBytes(ByteBuf buf) throws Exception {
    return buf.readBytes(javaChannel(), buf.readableBytes());
  }

  @Override
  protected long doWriteFileRegion(FileRegion region) throws Exception {
    return region.transferTo(javaChannel(), region.transferred());
  }

  private final class Config extends DefaultChannelConfig {
    Config() {
      super(NioUnixChannel.this);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
      // TCP options (gRPC sets SO_KEEPALIVE) mean nothing on a Unix socket: accept them.
      if (option == ChannelOption.SO_KEEPALIVE || option == ChannelOption.TCP_NODELAY) return true;
      return super.setOption(option, value);
    }

    @Override
    protected void autoReadCleared() {
      clearReadPending();
    }
  }
}
