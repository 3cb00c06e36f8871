// A Netty server channel on a Unix domain socket, using the JDK's own support
// (java.nio, JDK 16+) instead of Netty's native epoll library, which Debian's
// libnetty-java does not ship. Plumbing: a bot author never needs to touch it.
package unixsock;

import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.AbstractNioMessageChannel;
import io.netty.util.NetUtil;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.List;

public final class NioUnixServerChannel extends AbstractNioMessageChannel implements ServerChannel {
  private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

  private final Config config = new Config();
  private volatile UnixDomainSocketAddress local;

  public NioUnixServerChannel() {
    super(null, open(), SelectionKey.OP_ACCEPT);
  }

  private static ServerSocketChannel open() {
    try {
      return ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    } catch (IOException e) {
      throw new ChannelException("cannot open a Unix domain server socket", e);
    }
  }

  @Override
  protected ServerSocketChannel javaChannel() {
    return (ServerSocketChannel) super.javaChannel();
  }

  @Override
  public ChannelConfig config() {
    return config;
  }

  @Override
  public ChannelMetadata metadata() {
    return METADATA;
  }

  @Override
  public boolean isActive() {
    return isOpen() && local != null;
  }

  @Override
  protected SocketAddress localAddress0() {
    return local;
  }

  @Override
  protected SocketAddress remoteAddress0() {
    return null;
  }

  @Override
  protected void doBind(SocketAddress address) throws Exception {
    javaChannel().bind(address, config.backlog);
    local = (UnixDomainSocketAddress) javaChannel().getLocalAddress();
  }

  @Override
  protected void doClose() throws Exception {
    javaChannel().close();
    UnixDomainSocketAddress bound = local;
    if (bound != null) Files.deleteIfExists(bound.getPath()); // the socket file we created
  }

  @Override
  protected int doReadMessages(List<Object> buf) throws Exception {
    SocketChannel ch = javaChannel().accept();
    if (ch == null) return 0;
    try {
      buf.add(new NioUnixChannel(this, ch));
      return 1;
    } catch (Throwable t) {
      ch.close();
      throw t;
    }
  }

  @Override
  protected boolean doConnect(SocketAddress remote, SocketAddress localAddress) {
    throw new UnsupportedOperationException();
  }

  @Override
  protected void doFinishConnect() {
    throw new UnsupportedOperationException();
  }

  @Override
  protected void doDisconnect() {
    throw new UnsupportedOperationException();
  }

  @Override
  protected boolean doWriteMessage(Object msg, ChannelOutboundBuffer in) {
    throw new UnsupportedOperationException();
  }

  @Override
  protected Object filterOutboundMessage(Object msg) {
    throw new UnsupportedOperationException();
  }

  private final class Config extends DefaultChannelConfig {
    volatile int backlog = NetUtil.SOMAXCONN;

    Config() {
      super(NioUnixServerChannel.this);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
      if (option == ChannelOption.SO_BACKLOG) return (T) Integer.valueOf(backlog);
      return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
      if (option == ChannelOption.SO_BACKLOG) {
        backlog = (Integer) value;
        return true;
      }
      return super.setOption(option, value);
    }

    @Override
    protected void autoReadCleared() {
      clearReadPending();
    }
  }
}
