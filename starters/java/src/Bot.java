// java-starter: a Callbreak bot in Java (grpc-java), built only from bot.proto
// (see docs/protocol.md).
//
// It serves the callbreak.v1.Bot service on the address the platform gives it
// (last command-line argument, or CALLBREAK_ADDRESS), calls a rough estimate of
// its sure tricks, and plays its lowest legal card unless it is last to play and
// can win the trick cheaply. It keeps no state between decisions. One process
// serves one game: when the referee closes the stream, the bot exits.
//
// The strategy is chooseCall and chooseCard; the rest is plumbing.

import callbreak.v1.BotGrpc;
import callbreak.v1.BotMessage;
import callbreak.v1.DecisionKind;
import callbreak.v1.DecisionReply;
import callbreak.v1.DecisionRequest;
import callbreak.v1.HelloReply;
import callbreak.v1.RefereeMessage;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import unixsock.NioUnixServerChannel;

public final class Bot {
  static final String NAME = "java-starter";
  static final String VERSION = "1.0.0";
  static final String RANKS = "23456789TJQKA";

  // ---- strategy ------------------------------------------------------------

  static int rank(String card) {
    return RANKS.indexOf(card.charAt(0));
  }

  static char suit(String card) {
    return card.charAt(1);
  }

  // Does `card` beat `best`, the card heading a trick (so of the led suit or a spade)?
  static boolean beats(String card, String best) {
    if (suit(card) == suit(best)) return rank(card) > rank(best);
    return suit(card) == 'S';
  }

  static String currentBest(List<String> cards) {
    String best = cards.get(0);
    for (String card : cards) if (beats(card, best)) best = card;
    return best;
  }

  // Aces, kings, and every spade beyond the third, clamped to the legal range.
  static int chooseCall(DecisionRequest request) {
    int high = 0;
    int spades = 0;
    for (String card : request.getObservation().getHandList()) {
      if (card.charAt(0) == 'A' || card.charAt(0) == 'K') high++;
      if (suit(card) == 'S') spades++;
    }
    int call = high + Math.max(0, spades - 3);
    return Math.min(request.getMaxCall(), Math.max(request.getMinCall(), call));
  }

  // Lowest first; among equal ranks a side suit before a spade (spades are trumps).
  static int byCheapness(String a, String b) {
    if (rank(a) != rank(b)) return rank(a) - rank(b);
    return (suit(a) == 'S' ? 1 : 0) - (suit(b) == 'S' ? 1 : 0);
  }

  static String chooseCard(DecisionRequest request) {
    List<String> legal = new ArrayList<>(request.getLegalCardsList());
    legal.sort(Bot::byCheapness); // stable, like the JavaScript sample
    List<String> played = request.getObservation().getCurrent().getCardsList();
    if (played.size() == 3) {
      String best = currentBest(played);
      for (String card : legal) if (beats(card, best)) return card;
    }
    return legal.get(0);
  }

  static DecisionReply reply(DecisionRequest request) {
    DecisionReply.Builder answer = DecisionReply.newBuilder().setId(request.getId());
    if (request.getKind() == DecisionKind.CALL) answer.setCall(chooseCall(request));
    else answer.setCard(chooseCard(request));
    return answer.build();
  }

  // ---- plumbing ------------------------------------------------------------

  /** Counted down when the game's stream is over (closed, cancelled or broken). */
  static final CountDownLatch done = new CountDownLatch(1);

  static final class Service extends BotGrpc.BotImplBase {
    @Override
    public StreamObserver<RefereeMessage> play(StreamObserver<BotMessage> out) {
      return new StreamObserver<RefereeMessage>() {
        @Override
        public void onNext(RefereeMessage message) {
          switch (message.getKindCase()) {
            case HELLO:
              out.onNext(BotMessage.newBuilder()
                  .setHello(HelloReply.newBuilder()
                      .setProtocol("callbreak.v1").setName(NAME).setVersion(VERSION))
                  .build());
              break;
            case DECISION:
              DecisionReply answer;
              try {
                answer = reply(message.getDecision());
              } catch (RuntimeException e) {
                e.printStackTrace(); // the traceback goes to the log (stderr) ...
                answer = DecisionReply.newBuilder() // ... the referee gets its name
                    .setId(message.getDecision().getId())
                    .setError(callbreak.v1.DecisionError.newBuilder()
                        .setType(e.getClass().getSimpleName())
                        .setMessage(String.valueOf(e.getMessage())))
                    .build();
              }
              out.onNext(BotMessage.newBuilder().setDecision(answer).build());
              break;
            default: // events need no reply; this bot ignores them
              break;
          }
        }

        @Override
        public void onCompleted() { // the referee half-closed: the game is over
          out.onCompleted();
          done.countDown();
        }

        @Override
        public void onError(Throwable t) { // cancelled or broken: over for this bot too
          System.err.println(NAME + ": stream ended: " + t);
          done.countDown();
        }
      };
    }
  }

  static SocketAddress parseAddress(String address) {
    if (address.startsWith("unix://")) return UnixDomainSocketAddress.of(address.substring(7));
    if (address.startsWith("unix:")) return UnixDomainSocketAddress.of(address.substring(5));
    int colon = address.lastIndexOf(':');
    if (colon < 0) throw new IllegalArgumentException("not unix:PATH or HOST:PORT: " + address);
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
    return new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1)));
  }

  public static void main(String[] args) throws Exception {
    String address = args.length > 0 ? args[args.length - 1] : System.getenv("CALLBREAK_ADDRESS");
    if (address == null || address.isEmpty()) {
      System.err.println("usage: java -cp ... Bot ADDRESS (or set CALLBREAK_ADDRESS), e.g. unix:/tmp/bot.sock");
      System.exit(2);
    }
    SocketAddress listen = parseAddress(address);
    // Netty names its channels from the host's MAC address and the process id: give it
    // both, so it neither warns in a sandbox without network interfaces nor loads JMX.
    if (System.getProperty("io.netty.machineId") == null) {
      System.setProperty("io.netty.machineId", "02:00:00:00:00:01");
    }
    if (System.getProperty("io.netty.processId") == null) {
      System.setProperty("io.netty.processId", Long.toString(ProcessHandle.current().pid()));
    }
    // One event-loop thread does all the I/O and runs the handler (directExecutor):
    // the whole bot stays at a handful of threads besides the JVM's own.
    EventLoopGroup loop = new NioEventLoopGroup(1, new DefaultThreadFactory("bot-io"));
    NettyServerBuilder builder = NettyServerBuilder.forAddress(listen)
        .bossEventLoopGroup(loop)
        .workerEventLoopGroup(loop)
        .directExecutor()
        .addService(new Service());
    // Debian's netty has no native epoll library, so Unix sockets use the JDK's own
    // (java.nio, JDK 16+) through a small NIO channel: see src/unixsock/.
    if (listen instanceof UnixDomainSocketAddress) builder.channelFactory(NioUnixServerChannel::new);
    else builder.channelType(NioServerSocketChannel.class);
    Server server;
    try {
      server = builder.build().start();
    } catch (Exception e) {
      System.err.println(NAME + ": cannot serve on " + address + ": " + e);
      System.exit(1);
      return;
    }
    System.err.println(NAME + ": serving on " + address);

    done.await();
    server.shutdown(); // lets the finished call flush its trailers
    server.awaitTermination(2, TimeUnit.SECONDS);
    server.shutdownNow();
    loop.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS).await(1, TimeUnit.SECONDS);
    System.exit(0);
  }
}
